package spec

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/regfile"
)

// TestRootReadFile reads a file under the root, and refuses a symbolic
// link that leads out of it and a path that is not a regular file.
func TestRootReadFile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proposal.md"), []byte("# P"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Root{Dir: dir}
	if b, err := r.ReadFile(filepath.Join(dir, "proposal.md")); err != nil || string(b) != "# P" {
		t.Errorf("ReadFile(proposal.md) = %q, %v; want \"# P\"", b, err)
	}
	if b, err := r.ReadFile(filepath.Join(dir, "escape.md")); !errors.Is(err, ErrOutside) {
		t.Errorf("ReadFile(link out) = %q, %v; want ErrOutside", b, err)
	}
	if _, err := r.ReadFile(filepath.Join(dir, "sub")); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("ReadFile(directory) err = %v; want ErrNotRegular", err)
	}
	if _, err := r.ReadFile(filepath.Join(dir, "missing.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) err = %v; want not exist", err)
	}
}
