package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/ledger"
)

// TestOpenSpecLock holds a repository's jj-openspec lock in this process
// and runs the mutating verbs: each fails at once with exit 3 naming this
// process, and writes nothing. It also checks where the lock lives in a
// jj workspace, a git repository and outside any repository.
func TestOpenSpecLock(t *testing.T) {
	isolate(t)
	dir := bigRepo(t, 3, "alpha")
	before := snapshot(t, dir)
	l, err := ledger.Acquire(filepath.Join(dir, ".jj", "specstack", "jj-openspec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"archive", "alpha", "--yes"}, {"tasks", "tick", "alpha", "1.1"}, {"tasks", "untick", "alpha", "1.1"}} {
		r := runIn(dir, "jj-openspec", args...)
		if want := fmt.Sprintf("locked by pid %d ", os.Getpid()); r.code != 3 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v while locked: exit %d, want 3 naming %q:\n%s", args, r.code, want, r.stderr)
		}
	}
	if d := diffTrees(snapshot(t, dir), before); len(d) > 0 {
		t.Errorf("a locked-out verb wrote %v", d)
	}
	// reads go on
	if r := runIn(dir, "jj-openspec", "list"); r.code != 0 {
		t.Errorf("list while locked: exit %d\n%s", r.code, r.stderr)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}

	home, _ := os.UserHomeDir()
	plain := t.TempDir()
	copyTree(t, filepath.Join(dir, "openspec"), filepath.Join(plain, "openspec"))
	real, _ := filepath.EvalSymlinks(plain)
	gitRepo := t.TempDir()
	copyTree(t, filepath.Join(dir, "openspec"), filepath.Join(gitRepo, "openspec"))
	mustRun(t, gitRepo, "git", "init", "-q")
	tests := []struct {
		name, dir, ledger string
	}{
		{"jj", dir, filepath.Join(dir, ".jj", "specstack", "jj-openspec")},
		{"git", gitRepo, filepath.Join(gitRepo, ".git", "specstack", "jj-openspec")},
		{"no repository", plain, filepath.Join(home, ".local", "state", "specstack", "jj-openspec", stateKey(real))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := runIn(tt.dir, "jj-openspec", "archive", "alpha", "--yes"); r.code != 0 {
				t.Fatalf("archive: exit %d\n%s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(tt.ledger, ledger.LockFile)); err != nil {
				t.Errorf("no lock in %s: %v", tt.ledger, err)
			}
			if _, err := os.Stat(filepath.Join(tt.ledger, "archive-journal")); !os.IsNotExist(err) {
				t.Errorf("journal left in %s: %v", tt.ledger, err)
			}
		})
	}
}

// stateKey is the README's name for a project's ledger outside any
// repository: the first 16 hex digits of the SHA-256 of its real path.
func stateKey(real string) string {
	h := sha256.Sum256([]byte(real))
	return hex.EncodeToString(h[:8])
}
