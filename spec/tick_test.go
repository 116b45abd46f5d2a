package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTickRemovesKilledTemp: a tick killed inside its atomic write leaves
// renameio's hidden temporary beside tasks.md, which jj would snapshot
// into the change; the next tick removes it and keeps the user's files.
func TestTickRemovesKilledTemp(t *testing.T) {
	dir := t.TempDir()
	r := Root{Dir: dir}
	cd := r.ChangeDir("add-x")
	if err := os.MkdirAll(cd, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(cd, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proposal.md", "# add-x\n")
	write("tasks.md", "## 1. Group\n- [ ] 1.1 Do it\n- [ ] 1.2 Then this\n")
	write(".tasks.md123456789", "- [x] 1.1 Do it\n") // what kill -9 left
	write(".tasks.md.notes", "mine\n")               // the user's, not a temp
	written, err := r.Tick("add-x", []string{"1.1"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 {
		t.Errorf("written = %v, want tasks.md", written)
	}
	b, err := os.ReadFile(filepath.Join(cd, "tasks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "## 1. Group\n- [x] 1.1 Do it\n- [ ] 1.2 Then this\n"; string(b) != want {
		t.Errorf("tasks.md = %q, want %q", b, want)
	}
	if _, err := os.Lstat(filepath.Join(cd, ".tasks.md123456789")); !os.IsNotExist(err) {
		t.Errorf("the killed tick's temporary is still there (err %v)", err)
	}
	if _, err := os.Lstat(filepath.Join(cd, ".tasks.md.notes")); err != nil {
		t.Errorf("the user's .tasks.md.notes was removed: %v", err)
	}
}
