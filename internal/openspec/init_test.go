package openspec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitParity: jj-openspec init lays out the spec tree the real
// `openspec init` lays out, file for file and byte for byte; the real CLI
// reads the native tree; a second init changes nothing (exit 2).
func TestInitParity(t *testing.T) {
	requireOpenSpec(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the lock, outside any repository
	real, native := t.TempDir(), t.TempDir()
	if out, errb, code := realOpenSpec(t, real, "init", "--tools", "none", "--no-animation", "."); code != 0 {
		t.Fatalf("openspec init: exit %d\n%s\n%s", code, out, errb)
	}
	out, errb, code := jjOpenSpec("-R", native, "init")
	if code != 0 {
		t.Fatalf("jj-openspec init: exit %d\n%s\n%s", code, out, errb)
	}
	want, got := tree(t, real), tree(t, native)
	if d := diffTrees(want, got); d != "" {
		t.Errorf("init trees differ (want: openspec init):\n%s", d)
	}
	if len(want) != 3 {
		t.Errorf("openspec init wrote %d files, expected config.yaml and two .gitkeep: %v", len(want), want)
	}
	if _, errb, code := realOpenSpec(t, native, "list", "--json"); code != 0 {
		t.Errorf("openspec list on the native tree: exit %d: %s", code, errb)
	}

	before := tree(t, native)
	_, errb, code = jjOpenSpec("-R", native, "init")
	if code != 2 || !strings.Contains(errb, filepath.Join(native, "openspec")+" already exists: nothing was changed") {
		t.Errorf("second init: exit %d, stderr %q", code, errb)
	}
	if d := diffTrees(before, tree(t, native)); d != "" {
		t.Errorf("second init changed the tree:\n%s", d)
	}
	// A file named openspec is not replaced either.
	file := t.TempDir()
	os.WriteFile(filepath.Join(file, "openspec"), []byte("mine\n"), 0o644)
	if _, _, code := jjOpenSpec("-R", file, "init"); code != 2 {
		t.Errorf("init over a file named openspec: exit %d", code)
	}
	if b, _ := os.ReadFile(filepath.Join(file, "openspec")); string(b) != "mine\n" {
		t.Errorf("the file was changed: %q", b)
	}
	entries, _ := os.ReadDir(native)
	if len(entries) != 1 {
		t.Errorf("left beside the tree: %v", entries)
	}
}
