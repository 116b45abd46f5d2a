package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymlinksRefused: the ledger's folder, its artifacts folder and its
// files are the program's own; a symbolic link in their place (here to a
// folder or file outside) is refused by the lock and by every reader,
// and nothing is written where it leads.
func TestSymlinksRefused(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "run.toml"), []byte("schema = 1\n"), 0o644)

	root := t.TempDir()
	linked := filepath.Join(root, "ledger")
	os.Symlink(outside, linked)
	if l, err := Acquire(linked); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		if l != nil {
			l.Release()
		}
		t.Errorf("Acquire of a linked ledger folder: %v, want it refused", err)
	}

	dir := filepath.Join(root, "real")
	os.MkdirAll(dir, 0o755)
	os.Symlink(outside, filepath.Join(dir, "artifacts"))
	if l, err := Acquire(dir); err == nil || !strings.Contains(err.Error(), "artifacts is a symbolic link") {
		if l != nil {
			l.Release()
		}
		t.Errorf("Acquire with a linked artifacts folder: %v, want it refused", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder a link leads to was written: %v", entries)
	}

	os.Symlink(filepath.Join(outside, "run.toml"), filepath.Join(dir, "run.toml"))
	var v struct{ Schema int }
	if err := ReadFile(filepath.Join(dir, "run.toml"), &v); err == nil || !strings.Contains(err.Error(), "the ledger's files are its own") {
		t.Errorf("ReadFile through a link: %v (schema %d), want it refused", err, v.Schema)
	}
}
