package openspec_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/specstack/specstack/internal/testenv"
)

// corpusDir holds the parity corpus: one OpenSpec repository per txtar.
const corpusDir = "../../testdata/openspec"

// corpus lists the corpus files, sorted.
func corpus(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) < 25 {
		t.Fatalf("corpus has %d repositories, want at least 25", len(files))
	}
	return files
}

// extract writes the repository of a corpus file into dir, with the
// specs and changes folders OpenSpec expects even when empty, and stamps
// its files with fixed nanosecond modification times (see stampTimes).
func extract(t testing.TB, file, dir string) {
	t.Helper()
	testenv.ExtractCorpus(t, file, dir)
	for _, d := range []string{"openspec/specs", "openspec/changes"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stampTimes(t, file, dir)
}

// stampBase is the modification time of the first file of an extracted
// corpus repository.
var stampBase = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

// stampTimes gives every file of an extracted repository a fixed
// modification time with a sub-millisecond part, as an ordinary checkout
// has: the k-th file in path order gets stampBase + k × 7.6543217 ms, so
// two extractions list identically and lastModified's rounding shows. A
// "mtime PATH: RFC3339-TIME" line in the corpus comment sets one file's.
func stampTimes(t testing.TB, file, dir string) {
	t.Helper()
	stampTree(t, dir)
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		rest, ok := strings.CutPrefix(line, "mtime ")
		if !ok {
			continue
		}
		name, stamp, _ := strings.Cut(rest, ": ")
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(stamp))
		if err != nil {
			t.Fatalf("%s: %q: %v", file, line, err)
		}
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// stampTree gives the files under dir the times stampTimes describes,
// and every directory (dir too) stampBase, so that a tree written by a
// test is the same, times included, on every run (the parity cache's key
// holds them).
func stampTree(t testing.TB, dir string) {
	t.Helper()
	var files, dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			dirs = append(dirs, p)
		case d.Type().IsRegular():
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for k, p := range files {
		at := stampBase.Add(time.Duration(k) * 7654321700 / 1000)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range dirs {
		if err := os.Chtimes(p, stampBase, stampBase); err != nil {
			t.Fatal(err)
		}
	}
}

// changeNames lists the active changes of an extracted repository.
func changeNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "openspec", "changes"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "archive" {
			names = append(names, e.Name())
		}
	}
	return names
}

// tree reads every file under dir/openspec as path → content.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, "openspec")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffTrees describes how two trees differ, or returns "".
func diffTrees(want, got map[string]string) string {
	var b strings.Builder
	var paths []string
	seen := map[string]bool{}
	for p := range want {
		paths = append(paths, p)
		seen[p] = true
	}
	for p := range got {
		if !seen[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		w, wok := want[p]
		g, gok := got[p]
		switch {
		case !gok:
			b.WriteString("missing from jj-openspec: " + p + "\n")
		case !wok:
			b.WriteString("only in jj-openspec: " + p + "\n")
		case w != g:
			b.WriteString("differs: " + p + "\n--- openspec\n" + w + "\n--- jj-openspec\n" + g + "\n")
		}
	}
	return b.String()
}

// expected reads the "expect CHANGE: valid|invalid archive|refuse" lines
// of a corpus file: change → [valid, archived].
func expected(t testing.TB, file string) map[string][2]bool {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]bool{}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "expect "); ok {
			name, verdicts, _ := strings.Cut(rest, ": ")
			f := strings.Fields(verdicts)
			if len(f) == 2 {
				out[name] = [2]bool{f[0] == "valid", f[1] == "archive"}
			}
		}
	}
	return out
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
