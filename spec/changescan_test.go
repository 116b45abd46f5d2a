package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// walkLastModified is the definition scanChange must meet, written the
// plain way (as lastModified was before the scan): the newest mtime of
// any non-directory entry under dir, links followed, entries that cannot
// be stat'ed left out.
func walkLastModified(t *testing.T, dir string) time.Time {
	t.Helper()
	var latest time.Time
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(latest) {
			latest = fi.ModTime()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return latest
}

// TestScanChange: one walk answers what list asks of a change — the
// newest mtime under it (links to files and to directories count as
// their target, dangling links are left out, subdirectories are entered),
// the entries directly in it and which of them are regular files.
func TestScanChange(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "c")
	writeFiles(t, dir, map[string]string{
		"proposal.md":         "## Why\n",
		"tasks.md":            "- [ ] 1.1 a\n",
		"specs/a/spec.md":     "## ADDED Requirements\n",
		"specs/b/deep/x.md":   "x\n",
		".openspec.yaml":      "schema: spec-driven\n",
		"notes/ignored/y.txt": "y\n",
	})
	outside := filepath.Join(root, "outside")
	writeFiles(t, outside, map[string]string{"target.md": "t\n"})
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	times := map[string]time.Time{
		"proposal.md":         base,
		"tasks.md":            base.Add(time.Minute),
		"specs/a/spec.md":     base.Add(2 * time.Minute),
		"specs/b/deep/x.md":   base.Add(3*time.Minute + 123456789),
		".openspec.yaml":      base.Add(-time.Hour),
		"notes/ignored/y.txt": base.Add(time.Second),
	}
	for name, at := range times {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "target.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "missing"), filepath.Join(dir, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}

	for _, target := range []time.Time{base.Add(-2 * time.Hour), base.Add(time.Hour), base.Add(2 * time.Hour)} {
		// The newest is in a subdirectory, then the file a link names,
		// then the directory a link names.
		if err := os.Chtimes(filepath.Join(outside, "target.md"), target, target); err != nil {
			t.Fatal(err)
		}
		if target.After(base.Add(90 * time.Minute)) {
			if err := os.Chtimes(outside, target.Add(time.Minute), target.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		s, err := scanChange(dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := walkLastModified(t, dir); !s.latest.Equal(want) {
			t.Errorf("latest = %v, want %v", s.latest, want)
		}
	}
	s, err := scanChange(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"proposal.md", "tasks.md", "specs", ".openspec.yaml", "notes", "link.md", "dangling.md", "dirlink"} {
		if !s.names[n] {
			t.Errorf("names lacks %q: %v", n, s.names)
		}
	}
	if len(s.names) != 8 {
		t.Errorf("names = %v, want 8 entries", s.names)
	}
	want := map[string]fileStat{
		"proposal.md": {regular: true}, "tasks.md": {regular: true}, ".openspec.yaml": {regular: true},
		"link.md": {regular: true}, "dirlink": {dir: true},
	}
	if len(s.files) != len(want) {
		t.Errorf("files = %v, want %v", s.files, want)
	}
	for n, w := range want {
		if got := s.files[n]; got.regular != w.regular || got.dir != w.dir {
			t.Errorf("files[%q] = %+v, want %+v", n, s.files[n], w)
		}
	}
	if got := s.outputs("tasks.md"); len(got) != 1 || got[0] != filepath.Join(dir, "tasks.md") {
		t.Errorf("outputs(tasks.md) = %v", got)
	}
	for _, g := range []string{"dirlink", "dangling.md", "none.md", "specs"} {
		if got := s.outputs(g); got != nil {
			t.Errorf("outputs(%q) = %v, want none (as Outputs: %v)", g, got, Outputs(dir, g))
		}
	}
	if got, want := s.outputs("specs/**/*.md"), Outputs(dir, "specs/**/*.md"); len(got) != len(want) || len(got) != 2 {
		t.Errorf("outputs(glob) = %v, want %v", got, want)
	}
	if !s.hasMarkerFile() {
		t.Error("hasMarkerFile = false with proposal.md present")
	}

	// A missing change has no files; an empty one none either (the
	// caller then takes the directory's own mtime).
	for _, d := range []string{filepath.Join(root, "gone"), filepath.Join(root, "empty")} {
		if filepath.Base(d) == "empty" {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		s, err := scanChange(d)
		if err != nil || !s.latest.IsZero() || len(s.names) != 0 || s.hasMarkerFile() {
			t.Errorf("scanChange(%s) = %+v, %v; want nothing found", d, s, err)
		}
	}
}

// TestScanChangeLargeDirectory: a directory whose entries take several
// reads of the kernel's directory buffer is read whole.
func TestScanChangeLargeDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	name := func(i int) string { return fmt.Sprintf("%03d-%s.md", i, strings.Repeat("x", 120)) }
	const n = 400
	files := map[string]string{}
	for i := range n {
		files[name(i)] = "x\n"
	}
	writeFiles(t, dir, files)
	// Whichever entry a read returns last, its mtime must be seen.
	newest := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		at := newest.Add(-time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, name(i)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, drop := range []int{-1, 0, n - 1} {
		if drop >= 0 { // the newest is then the next one
			old := newest.Add(-time.Hour)
			if err := os.Chtimes(filepath.Join(dir, name(drop)), old, old); err != nil {
				t.Fatal(err)
			}
		}
		s, err := scanChange(dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := walkLastModified(t, dir); len(s.names) != n || len(s.files) != n || !s.latest.Equal(want) {
			t.Errorf("%d names, %d files, latest %v; want %d, %d, %v", len(s.names), len(s.files), s.latest, n, n, want)
		}
	}
}
