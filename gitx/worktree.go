package gitx

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Worktree is one entry of `git worktree list`.
type Worktree struct {
	Path     string `json:"path"`
	HEAD     string `json:"head"`             // commit checked out; "" in a bare entry
	Branch   string `json:"branch,omitempty"` // short branch name; "" when detached
	Bare     bool   `json:"bare,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Locked   bool   `json:"locked,omitempty"`
}

// WorktreeAdd makes a work tree at path with base checked out: on a new
// branch when branch is not "", else detached.
func (r *Repo) WorktreeAdd(ctx context.Context, path, branch, base string) error {
	args := []string{"worktree", "add", "--quiet"}
	if branch != "" {
		args = append(args, "-b", branch, path, base)
	} else {
		args = append(args, "--detach", path, base)
	}
	if _, err := r.git(ctx, args...); err != nil {
		return fmt.Errorf("add worktree %s at %s: %w", path, base, err)
	}
	return nil
}

// WorktreeRemove removes the work tree at path. It never forces: a work
// tree with uncommitted changes or a lock stays, and the error says so.
func (r *Repo) WorktreeRemove(ctx context.Context, path string) error {
	if _, err := r.git(ctx, "worktree", "remove", path); err != nil {
		return fmt.Errorf("remove worktree %s (commit or discard its changes, or unlock it, first): %w", path, err)
	}
	return nil
}

// Worktrees lists the repository's work trees, the main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := r.gitRead(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	return parseWorktrees(string(out)), nil
}

func parseWorktrees(out string) []Worktree {
	var res []Worktree
	var cur *Worktree
	for _, l := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(l, " ")
		switch key {
		case "worktree":
			res = append(res, Worktree{Path: filepath.Clean(val)})
			cur = &res[len(res)-1]
		case "HEAD":
			if cur != nil {
				cur.HEAD = val
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(val, "refs/heads/")
			}
		case "bare":
			if cur != nil {
				cur.Bare = true
			}
		case "detached":
			if cur != nil {
				cur.Detached = true
			}
		case "locked":
			if cur != nil {
				cur.Locked = true
			}
		}
	}
	return res
}

// RebaseConflictError is a RebaseOnto that conflicted and was aborted:
// the branch is where it was.
type RebaseConflictError struct {
	Branch string // the branch that was to be replayed
	Onto   string // the new base
	Err    error  // git's report of the failed rebase
}

func (e *RebaseConflictError) Error() string {
	return fmt.Sprintf("rebase %s onto %s conflicts; aborted, %s is unchanged: %v", e.Branch, e.Onto, e.Branch, e.Err)
}

func (e *RebaseConflictError) Unwrap() error { return e.Err }

// RebaseOnto replays the commits of branch that are not in upstream onto
// newBase (git rebase --onto newBase upstream branch), in the work tree
// dir (which must have no uncommitted changes). A conflicting rebase is
// aborted, leaving branch where it was, and reported as a
// *RebaseConflictError.
func (r *Repo) RebaseOnto(ctx context.Context, dir, newBase, upstream, branch string) error {
	w := &Repo{Dir: dir, Bin: r.Bin, Env: r.Env}
	if _, err := w.git(ctx, "rebase", "--quiet", "--onto", newBase, upstream, branch); err != nil {
		if _, abortErr := w.git(ctx, "rebase", "--abort"); abortErr != nil {
			return fmt.Errorf("rebase %s onto %s: %w (and rebase --abort: %v; finish or abort it in %s)", branch, newBase, err, abortErr, dir)
		}
		return &RebaseConflictError{Branch: branch, Onto: newBase, Err: err}
	}
	return nil
}
