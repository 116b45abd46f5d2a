package repo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFind(t *testing.T) {
	base := t.TempDir()
	jj := mkdir(t, base, "jj")
	mkdir(t, jj, ".jj", "repo")
	sub := mkdir(t, jj, "a", "b")

	colo := mkdir(t, base, "colo")
	mkdir(t, colo, ".jj", "repo")
	mkdir(t, colo, ".git")

	git := mkdir(t, base, "git")
	mkdir(t, git, ".git", "worktrees", "wt")
	os.WriteFile(filepath.Join(git, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(git, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	wt := mkdir(t, base, "wt")
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../git/.git/worktrees/wt\n"), 0o644)

	for _, tc := range []struct {
		dir    string
		kind   Kind
		root   string
		ledger string
	}{
		{sub, KindJJ, jj, filepath.Join(jj, ".jj", "specstack", "jj-kaisen")},
		{colo, KindJJColocated, colo, filepath.Join(colo, ".jj", "specstack", "jj-kaisen")},
		{git, KindGit, git, filepath.Join(git, ".git", "specstack", "jj-kaisen")},
		{wt, KindGit, wt, filepath.Join(git, ".git", "specstack", "jj-kaisen")},
	} {
		r, err := Find(tc.dir)
		if err != nil {
			t.Errorf("Find(%s): %v", tc.dir, err)
			continue
		}
		if r.Kind != tc.kind || r.Root != tc.root || r.LedgerDir("jj-kaisen") != tc.ledger {
			t.Errorf("Find(%s) = %+v ledger %s; want %s %s %s", tc.dir, r, r.LedgerDir("jj-kaisen"), tc.kind, tc.root, tc.ledger)
		}
	}
	if _, err := Find(mkdir(t, base, "none")); !errors.Is(err, ErrNotFound) && base != "/" {
		// base is under the system temp dir, which is not a repository.
		t.Errorf("Find outside a repository: %v", err)
	}
	// An empty .git directory (Codex's sandbox makes /tmp/.git as a mount
	// target while it runs) and a .jj without its repo are not
	// repositories: Find looks past them.
	fake := mkdir(t, base, "fake")
	mkdir(t, fake, ".git")
	mkdir(t, fake, ".jj")
	inner := mkdir(t, fake, "project")
	if r, err := Find(inner); !errors.Is(err, ErrNotFound) && base != "/" {
		t.Errorf("Find under an empty .git and a bare .jj = %+v, %v; want ErrNotFound", r, err)
	}
}
