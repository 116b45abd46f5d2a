package openspec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/openspec"
)

// TestCacheKey requires the parity cache's key to change with everything
// a run of the CLI can see (so a cached result can never stand in for a
// run that would have printed something else), and not with the path of
// the directory (so a fresh extraction finds its entry).
func TestCacheKey(t *testing.T) {
	base := t.TempDir()
	write(t, base, "openspec/specs/auth/spec.md", "# auth\n\n## Requirements\n")
	write(t, base, "openspec/changes/c/proposal.md", "## Why\nA reason.\n")
	if err := os.Symlink("proposal.md", filepath.Join(base, "openspec/changes/c/link.md")); err != nil {
		t.Fatal(err)
	}
	stampTree(t, base)
	tree0, err := snapshot(base)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"validate", "c", "--json"}
	key0 := cacheKey("cli-1", "2026-01-02", "UTC", args, tree0)

	// The same tree elsewhere has the same key (and restore rebuilds it).
	elsewhere := t.TempDir()
	if err := restore(elsewhere, tree0); err != nil {
		t.Fatal(err)
	}
	if tree, err := snapshot(elsewhere); err != nil || cacheKey("cli-1", "2026-01-02", "UTC", args, tree) != key0 {
		t.Fatalf("the same tree in another directory has another key (%v)", err)
	}

	keys := map[string]string{"base": key0}
	differs := func(what, key string) {
		t.Helper()
		for other, k := range keys {
			if k == key {
				t.Errorf("%s: same key as %s", what, other)
			}
		}
		keys[what] = key
	}
	differs("CLI identity", cacheKey("cli-2", "2026-01-02", "UTC", args, tree0))
	differs("day", cacheKey("cli-1", "2026-01-03", "UTC", args, tree0))
	differs("time zone", cacheKey("cli-1", "2026-01-02", "Europe/Paris", args, tree0))
	for name, a := range map[string][]string{
		"argv order":   {"validate", "--json", "c"},
		"argv extra":   {"validate", "c", "--json", "--strict"},
		"argv fewer":   {"validate", "c"},
		"argv joined":  {"validate", "c --json"},
		"argv empty":   {"validate", "c", "--json", ""},
		"argv changed": {"validate", "d", "--json"},
	} {
		differs(name, cacheKey("cli-1", "2026-01-02", "UTC", a, tree0))
	}
	saved := openspec.Harmless
	openspec.Harmless = saved[:1]
	differs("stderr allow-list", cacheKey("cli-1", "2026-01-02", "UTC", args, tree0))
	openspec.Harmless = saved

	later := stampBase.Add(time.Nanosecond)
	for name, change := range map[string]func(dir string) error{
		"one byte of content": func(dir string) error {
			return rewrite(dir, "openspec/changes/c/proposal.md", "## Why\nA reasoN.\n")
		},
		"content grows": func(dir string) error {
			return rewrite(dir, "openspec/changes/c/proposal.md", "## Why\nA reason.\n\n")
		},
		"file time, 1 ns": func(dir string) error {
			return os.Chtimes(filepath.Join(dir, "openspec/specs/auth/spec.md"), later, later)
		},
		"directory time, 1 ns": func(dir string) error {
			return os.Chtimes(filepath.Join(dir, "openspec/changes/c"), later, later)
		},
		"file mode": func(dir string) error {
			return os.Chmod(filepath.Join(dir, "openspec/specs/auth/spec.md"), 0o600)
		},
		"file renamed": func(dir string) error {
			p := filepath.Join(dir, "openspec/specs/auth")
			if err := os.Rename(filepath.Join(p, "spec.md"), filepath.Join(p, "Spec.md")); err != nil {
				return err
			}
			return os.Chtimes(p, stampBase, stampBase)
		},
		"empty directory added": func(dir string) error {
			p := filepath.Join(dir, "openspec/changes/d")
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			if err := os.Chtimes(p, stampBase, stampBase); err != nil {
				return err
			}
			return os.Chtimes(filepath.Dir(p), stampBase, stampBase)
		},
		"symlink target": func(dir string) error {
			p := filepath.Join(dir, "openspec/changes/c/link.md")
			if err := os.Remove(p); err != nil {
				return err
			}
			if err := os.Symlink("tasks.md", p); err != nil {
				return err
			}
			return os.Chtimes(filepath.Dir(p), stampBase, stampBase)
		},
	} {
		dir := t.TempDir()
		if err := restore(dir, tree0); err != nil {
			t.Fatal(err)
		}
		if err := change(dir); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tree, err := snapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		differs(name, cacheKey("cli-1", "2026-01-02", "UTC", args, tree))
	}
	if len(keys) != 19 {
		t.Errorf("%d distinct keys, want 19", len(keys))
	}
}

// rewrite replaces a file's content and keeps its modification time.
func rewrite(dir, name, content string) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Chtimes(p, info.ModTime(), info.ModTime())
}

// TestCacheReplay runs an archive through the cache twice on two
// extractions of a corpus repository: the second run starts no CLI and
// gives back the same output, exit code and tree, modification times
// included; a repository that differs by one byte misses.
func TestCacheReplay(t *testing.T) {
	requireOpenSpec(t)
	t.Setenv("SPECSTACK_CACHE", t.TempDir())
	file := filepath.Join(corpusDir, "23-multiple-changes.txtar")
	args := []string{"archive", "alpha", "--yes"}
	runs := 0
	run := func(dir string) func() (string, string, int, error) {
		return func() (string, string, int, error) {
			runs++
			out, errOut, code := realOpenSpecUncached(t, dir, args...)
			return out, errOut, code, nil
		}
	}
	a, b := t.TempDir(), t.TempDir()
	extract(t, file, a)
	extract(t, file, b)
	wantOut, wantErr, wantCode, err := cachedRun(a, args, batchMode(), run(a))
	if err != nil {
		t.Fatal(err)
	}
	gotOut, gotErr, gotCode, err := cachedRun(b, args, batchMode(), run(b))
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Fatalf("the CLI ran %d times, want 1 (the second run from the cache)", runs)
	}
	if wantCode != 0 || gotCode != wantCode || gotOut != wantOut || gotErr != wantErr {
		t.Errorf("replayed run differs:\nexit %d, %d\nstdout:\n%s\n%s\nstderr:\n%s\n%s", wantCode, gotCode, wantOut, gotOut, wantErr, gotErr)
	}
	ta, err := snapshot(a)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := snapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ta) != fmt.Sprint(tb) {
		t.Errorf("replayed tree differs:\n%v\n%v", ta, tb)
	}
	c := t.TempDir()
	extract(t, file, c)
	if err := rewrite(c, "openspec/changes/alpha/proposal.md", readFile(t, c, "openspec/changes/alpha/proposal.md")+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := cachedRun(c, args, batchMode(), run(c)); err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Errorf("a changed repository was served from the cache")
	}
}
