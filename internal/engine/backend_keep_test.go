package engine_test

import (
	"os"
	"testing"

	"github.com/specstack/specstack/internal/engine"
)

// GitBackend.Keep commits what a worktree holds and keeps the commit on
// a branch of its own, which Release leaves; it touches nothing that is
// not a worktree of the repository on the workspace's branch (a
// half-made one would be read by git as part of an enclosing repository).
func TestGitKeep(t *testing.T) {
	f := newFixture(t, "git")
	b := f.w.(*engine.GitBackend)
	ctx := t.Context()
	ws, err := b.Provision(ctx, engine.Workspace{Name: "task-1", Base: []string{f.base}, Message: "task 1"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws.Path, "c.txt", "new\n")
	keep := func(string) string { return "task-1-kept" }
	kept, err := b.Keep(ctx, ws, keep)
	if err != nil || kept == "" {
		t.Fatalf("keep: %q, %v", kept, err)
	}
	if again, err := b.Keep(ctx, ws, keep); err != nil || again != kept {
		t.Errorf("keep again: %q, %v; want %s", again, err, kept)
	}
	if err := b.Release(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if got := run(t, f.root, "git", "show", "task-1-kept:c.txt"); got != "new" {
		t.Errorf("c.txt on the kept branch after release: %q", got)
	}
	if got := run(t, f.root, "git", "branch", "--list", "task-1"); got != "" {
		t.Errorf("task-1 after release: %q; want it deleted", got)
	}

	// nothing done: nothing kept
	ws2, err := b.Provision(ctx, engine.Workspace{Name: "task-2", Base: []string{f.base}, Message: "task 2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Keep(ctx, ws2, func(string) string { return "task-2-kept" }); err != nil || got != "" {
		t.Errorf("keep of an untouched worktree: %q, %v; want nothing", got, err)
	}
	b.Release(ctx, ws2)

	// a directory where a worktree would be, inside another repository
	parent := f.dir + "/.."
	run(t, parent, "git", "init", "--quiet")
	half := b.Path("task-3")
	if err := os.MkdirAll(half, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, half, "d.txt", "half\n")
	if got, err := b.Keep(ctx, engine.Workspace{Name: "task-3", Base: []string{f.base}}, func(string) string { return "task-3-kept" }); err != nil || got != "" {
		t.Errorf("keep of a half-made worktree: %q, %v; want nothing", got, err)
	}
	if out, _ := os.ReadFile(parent + "/.git/HEAD"); len(out) == 0 {
		t.Fatal("the enclosing repository is gone")
	}
	if got := run(t, parent, "git", "status", "--porcelain", "--untracked-files=no"); got != "" {
		t.Errorf("the enclosing repository was changed: %q", got)
	}
	if got := run(t, parent, "git", "rev-list", "--all"); got != "" {
		t.Errorf("the enclosing repository got commits: %s", got)
	}
}
