package gitx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrConflict reports an integration that conflicts; the error is a
// *ConflictError naming the files.
var ErrConflict = errors.New("conflicts")

// ConflictError is a rebase or merge that conflicted and was aborted.
type ConflictError struct {
	Op    string   // what conflicted: "rebase task-3 onto main"
	Files []string // the conflicted paths
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: %s in %s", e.Op, ErrConflict, strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// At returns a Repo for another work tree of the same repository.
func (r *Repo) At(dir string) *Repo { return &Repo{Dir: dir, Bin: r.Bin, Env: r.Env} }

// BranchCreate makes branch name at sha; it fails if the branch exists.
func (r *Repo) BranchCreate(ctx context.Context, name, sha string) error {
	if _, err := r.git(ctx, "branch", "--no-track", "--end-of-options", name, sha); err != nil {
		return fmt.Errorf("create branch %s at %s: %w", name, sha, err)
	}
	return nil
}

// BranchDelete deletes branch name whether or not it is merged (task
// branches only: their commits stay reachable from the target once
// integrated).
func (r *Repo) BranchDelete(ctx context.Context, name string) error {
	if _, err := r.git(ctx, "branch", "-D", "--end-of-options", name); err != nil {
		return fmt.Errorf("delete branch %s: %w", name, err)
	}
	return nil
}

// WorktreeAttach makes a work tree at path with the existing branch
// checked out.
func (r *Repo) WorktreeAttach(ctx context.Context, path, branch string) error {
	if _, err := r.git(ctx, "worktree", "add", "--quiet", path, branch); err != nil {
		return fmt.Errorf("add worktree %s on %s: %w", path, branch, err)
	}
	return nil
}

// WorktreeForceRemove removes the work tree at path and its
// registration, discarding what it holds (a task work tree being
// repaired or released), then prunes registrations whose directory is
// gone.
func (r *Repo) WorktreeForceRemove(ctx context.Context, path string) error {
	if _, err := r.git(ctx, "worktree", "remove", "--force", "--force", path); err != nil {
		return fmt.Errorf("remove worktree %s: %w", path, err)
	}
	return r.WorktreePrune(ctx)
}

// WorktreePrune forgets work trees whose directory is gone.
func (r *Repo) WorktreePrune(ctx context.Context) error {
	if _, err := r.git(ctx, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune worktrees: %w", err)
	}
	return nil
}

// CommitAll commits everything in the work tree (new, changed and
// deleted files) with message; committed is false when there was
// nothing to commit.
func (r *Repo) CommitAll(ctx context.Context, message string) (committed bool, err error) {
	out, err := r.gitRead(ctx, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return false, fmt.Errorf("status of %s: %w", r.Dir, err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return false, nil
	}
	if _, err := r.git(ctx, "add", "--all"); err != nil {
		return false, fmt.Errorf("stage the work in %s: %w", r.Dir, err)
	}
	if _, err := r.git(ctx, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return false, fmt.Errorf("commit the work in %s: %w", r.Dir, err)
	}
	return true, nil
}

// FileStat is one file of a diff with its line counts (binary files
// count 0).
type FileStat struct {
	Path    string
	Added   int
	Removed int
}

// NumStat lists the files that differ between the commits from and to
// with their line counts.
func (r *Repo) NumStat(ctx context.Context, from, to string) ([]FileStat, error) {
	out, err := r.gitRead(ctx, "diff", "--numstat", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	var res []FileStat
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0]) // "-" for binary files
		d, _ := strconv.Atoi(f[1])
		res = append(res, FileStat{Path: f[2], Added: a, Removed: d})
	}
	return res, nil
}

// Tree returns the tree SHA of commit rev.
func (r *Repo) Tree(ctx context.Context, rev string) (string, error) {
	if g, err := r.open(); err == nil {
		if sha, ok, err := resolve(g, rev); ok && err == nil {
			if c, err := g.commit(plumbing.NewHash(sha)); err == nil {
				return c.TreeHash.String(), nil
			}
		}
	}
	out, err := r.gitRead(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("tree of %s: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// RebaseBranch replays the current branch of this work tree onto onto
// (git rebase onto). A conflict aborts the rebase, leaving the branch as
// it was, and returns a *ConflictError naming the files.
func (r *Repo) RebaseBranch(ctx context.Context, onto string) error {
	if _, err := r.git(ctx, "rebase", "--quiet", "--end-of-options", onto); err != nil {
		files, uerr := r.Unmerged(ctx)
		if _, aerr := r.git(ctx, "rebase", "--abort"); aerr != nil {
			return fmt.Errorf("rebase onto %s: %w (and rebase --abort: %v; finish or abort it in %s)", onto, err, aerr, r.Dir)
		}
		if uerr == nil && len(files) > 0 {
			return &ConflictError{Op: "rebase onto " + onto, Files: files}
		}
		return fmt.Errorf("rebase onto %s in %s: %w", onto, r.Dir, err)
	}
	return nil
}

// ChangedPaths lists the files of the work tree that differ from commit
// from: tracked files changed since it and untracked files not ignored.
func (r *Repo) ChangedPaths(ctx context.Context, from string) ([]string, error) {
	changed, err := r.gitRead(ctx, "diff", "--name-only", "-z", "--end-of-options", from)
	if err != nil {
		return nil, fmt.Errorf("list files changed since %s in %s: %w", from, r.Dir, err)
	}
	untracked, err := r.gitRead(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("list untracked files in %s: %w", r.Dir, err)
	}
	var files []string
	for _, f := range strings.Split(string(changed)+string(untracked), "\x00") {
		if f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files, nil
}

// DiffFrom is the git diff from commit from to the work tree's tracked
// files.
func (r *Repo) DiffFrom(ctx context.Context, from string) ([]byte, error) {
	out, err := r.gitRead(ctx, "diff", "--no-color", "--no-ext-diff", "--end-of-options", from)
	if err != nil {
		return nil, fmt.Errorf("diff from %s in %s: %w", from, r.Dir, err)
	}
	return out, nil
}

// Applied reports whether commit's change is in upstream: commit itself,
// or a copy of its patch (a rebased copy), as `git cherry` finds it.
func (r *Repo) Applied(ctx context.Context, upstream, commit string) (bool, error) {
	if ok, err := r.IsAncestor(ctx, commit, upstream); err != nil || ok {
		return ok, err
	}
	out, err := r.gitRead(ctx, "cherry", upstream, commit, commit+"^")
	if err != nil {
		return false, fmt.Errorf("look for %s in %s: %w", commit, upstream, err)
	}
	return strings.HasPrefix(string(out), "-"), nil
}

// ResetTo moves the branch checked out in this work tree to rev and
// makes the work tree match it: uncommitted and untracked files go
// (ignored files stay).
func (r *Repo) ResetTo(ctx context.Context, rev string) error {
	sha, err := r.Resolve(ctx, rev) // a SHA can never be read as an option
	if err != nil {
		return err
	}
	if _, err := r.git(ctx, "reset", "--hard", "--quiet", sha, "--"); err != nil {
		return fmt.Errorf("reset %s to %s: %w", r.Dir, rev, err)
	}
	if _, err := r.git(ctx, "clean", "-d", "--force", "--quiet"); err != nil {
		return fmt.Errorf("clean %s: %w", r.Dir, err)
	}
	return nil
}

// Diff is the git diff from commit from to commit to.
func (r *Repo) Diff(ctx context.Context, from, to string) ([]byte, error) {
	a, b, err := r.resolveBoth(ctx, from, to) // SHAs are never read as options
	if err != nil {
		return nil, err
	}
	out, err := r.gitRead(ctx, "diff", "--no-color", "--no-ext-diff", a, b, "--")
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s in %s: %w", from, to, r.Dir, err)
	}
	return out, nil
}

// Unmerged lists the work tree's unmerged paths: the files a stopped
// merge or rebase left conflicted.
func (r *Repo) Unmerged(ctx context.Context) ([]string, error) {
	out, err := r.gitRead(ctx, "diff", "--name-only", "-z", "--diff-filter=U")
	if err != nil {
		return nil, fmt.Errorf("list unmerged paths in %s: %w", r.Dir, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// MergeFastForward moves the branch checked out in this work tree to rev,
// which must descend from it (linear history: never a merge commit).
func (r *Repo) MergeFastForward(ctx context.Context, rev string) error {
	if _, err := r.git(ctx, "merge", "--quiet", "--ff-only", "--end-of-options", rev); err != nil {
		return fmt.Errorf("fast-forward %s to %s: %w", r.Dir, rev, err)
	}
	return nil
}
