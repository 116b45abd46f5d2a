package gitx_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/gitx"
)

// TestTaskBranch: a task worktree on its own branch, what the worker left
// committed, counted and rebased; a conflicting rebase is aborted and
// reported as a *ConflictError naming the file.
func TestTaskBranch(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	base := run(t, f.dir, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "task-1")
	if err := f.repo.BranchCreate(ctx, "task-1", base); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.BranchCreate(ctx, "task-1", base); err == nil {
		t.Error("creating an existing branch succeeded")
	}
	if err := f.repo.WorktreeAttach(ctx, wt, "task-1"); err != nil {
		t.Fatal(err)
	}
	w := f.repo.At(wt)
	if committed, err := w.CommitAll(ctx, "Task 1"); err != nil || committed {
		t.Errorf("CommitAll of a clean worktree: %v, %v", committed, err)
	}
	if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte("A\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if committed, err := w.CommitAll(ctx, "Task 1"); err != nil || !committed {
		t.Fatalf("CommitAll: %v, %v", committed, err)
	}
	stats, err := w.NumStat(ctx, base, "HEAD")
	if want := []gitx.FileStat{{Path: "a.txt", Added: 2, Removed: 1}, {Path: "new.txt", Added: 1}}; err != nil || !slices.Equal(stats, want) {
		t.Errorf("NumStat: %+v, %v; want %+v", stats, err, want)
	}
	if tree, err := w.Tree(ctx, "HEAD"); err != nil || len(tree) != 40 {
		t.Errorf("Tree: %q, %v", tree, err)
	}

	// main moves on with a conflicting edit of a.txt: the rebase conflicts,
	// is aborted, and the branch is left as it was.
	commit(t, f.dir, "a.txt", "a changed on main\n")
	before := run(t, wt, "rev-parse", "HEAD")
	err = w.RebaseBranch(ctx, "main")
	var ce *gitx.ConflictError
	if !errors.Is(err, gitx.ErrConflict) || !errors.As(err, &ce) || !slices.Equal(ce.Files, []string{"a.txt"}) {
		t.Fatalf("RebaseBranch onto a conflicting main: %v; want a *ConflictError naming a.txt", err)
	}
	if after := run(t, wt, "rev-parse", "HEAD"); after != before {
		t.Errorf("the aborted rebase moved the branch: %s -> %s", before, after)
	}
	if st := run(t, wt, "status", "--porcelain"); st != "" {
		t.Errorf("the aborted rebase left the worktree dirty:\n%s", st)
	}

	// Release: worktree and branch gone.
	if err := f.repo.WorktreeForceRemove(ctx, wt); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.BranchDelete(ctx, "task-1"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, f.dir, "branch", "--list", "task-*"); got != "" {
		t.Errorf("branches left: %s", got)
	}
}

// TestTargetReads: what the git backend reads of its target work tree —
// files changed since a commit (committed, uncommitted and untracked),
// the diff, unmerged paths — and whether a task commit is applied, as
// itself or as a rebased copy.
func TestTargetReads(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	base := run(t, f.dir, "rev-parse", "HEAD")
	commit(t, f.dir, "b.txt", "b\n")
	if err := os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "c.txt"), []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := f.repo.ChangedPaths(ctx, base); err != nil || !slices.Equal(got, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Errorf("ChangedPaths: %v, %v; want a.txt b.txt c.txt", got, err)
	}
	if d, err := f.repo.DiffFrom(ctx, base); err != nil || !strings.Contains(string(d), "+y\n") || !strings.Contains(string(d), "+b\n") {
		t.Errorf("DiffFrom: %v\n%s", err, d)
	}
	if d, err := f.repo.Diff(ctx, base, "HEAD"); err != nil || !strings.Contains(string(d), "+b\n") || strings.Contains(string(d), "+y\n") {
		t.Errorf("Diff of the commits: %v\n%s", err, d)
	}
	if got, err := f.repo.Unmerged(ctx); err != nil || len(got) != 0 {
		t.Errorf("Unmerged of a work tree with no merge: %v, %v", got, err)
	}

	// A task commit on its own branch is not applied; its cherry-picked
	// copy on main makes it so.
	wt := filepath.Join(t.TempDir(), "task-1")
	if err := f.repo.BranchCreate(ctx, "task-1", base); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.WorktreeAttach(ctx, wt, "task-1"); err != nil {
		t.Fatal(err)
	}
	task := commit(t, wt, "d.txt", "d\n")
	if ok, err := f.repo.Applied(ctx, "main", task); err != nil || ok {
		t.Errorf("Applied before the copy: %v, %v", ok, err)
	}
	run(t, f.dir, "cherry-pick", task)
	if ok, err := f.repo.Applied(ctx, "main", task); err != nil || !ok {
		t.Errorf("Applied after the copy: %v, %v", ok, err)
	}
	if ok, err := f.repo.Applied(ctx, "main", base); err != nil || !ok {
		t.Errorf("Applied of an ancestor: %v, %v", ok, err)
	}
}

// TestResetTo: the work tree's branch goes back to a commit, and what
// was committed, changed or added since is gone.
func TestResetTo(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	base := run(t, f.dir, "rev-parse", "HEAD")
	commit(t, f.dir, "b.txt", "b\n")
	for name, body := range map[string]string{"a.txt": "changed\n", "c.txt": "untracked\n"} {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.repo.ResetTo(ctx, base); err != nil {
		t.Fatal(err)
	}
	if head := run(t, f.dir, "rev-parse", "HEAD"); head != base {
		t.Errorf("HEAD after ResetTo = %s, want %s", head, base)
	}
	if st := run(t, f.dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree after ResetTo:\n%s", st)
	}
}

// TestApplyDiff: a commit's diff is applied in a directory holding its
// parent's files (a new file, an edit); a diff writing into a .jj or
// .git folder is refused with the paths and nothing is applied.
func TestApplyDiff(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	base := run(t, f.dir, "rev-parse", "HEAD")
	commit(t, f.dir, "a.txt", "A\n")
	if err := os.WriteFile(filepath.Join(f.dir, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, f.dir, "add", "-A")
	run(t, f.dir, "commit", "-q", "-m", "more")
	good := run(t, f.dir, "rev-parse", "HEAD")
	if err := os.MkdirAll(filepath.Join(f.dir, "sub", ".jj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "sub", ".jj", "x"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, f.dir, "add", "-A")
	run(t, f.dir, "commit", "-q", "-m", "metadata")
	bad := run(t, f.dir, "rev-parse", "HEAD")

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var me *gitx.MetadataError
	if err := f.repo.ApplyDiff(ctx, good, bad, dir); !errors.As(err, &me) || !slices.Equal(me.Paths, []string{"sub/.jj/x"}) {
		t.Fatalf("ApplyDiff of a .jj file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("a refused diff wrote sub/: %v", err)
	}
	if err := f.repo.ApplyDiff(ctx, base, good, dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "A\n", "new.txt": "n\n"}
	check := func() {
		t.Helper()
		for name, want := range want {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
				t.Errorf("%s = %q, %v; want %q", name, got, err, want)
			}
		}
	}
	check()
	// Applied again (a resume after a kill between applying and
	// recording it): nothing changes, no error.
	if err := f.repo.ApplyDiff(ctx, base, good, dir); err != nil {
		t.Fatalf("ApplyDiff again: %v", err)
	}
	check()
	// Files that are neither side: an ApplyError, nothing written.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "new.txt"))
	var ae *gitx.ApplyError
	if err := f.repo.ApplyDiff(ctx, base, good, dir); !errors.As(err, &ae) {
		t.Fatalf("ApplyDiff onto edited files: %v, want an ApplyError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("a diff that did not apply wrote new.txt: %v", err)
	}
}
