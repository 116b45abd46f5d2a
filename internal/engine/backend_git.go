package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/specstack/specstack/gitx"
)

// GitBackend is the Backend on git worktrees: each task a worktree on a
// new branch (named as the workspace) at its base SHA; the worker's files
// are committed on that branch, which is rebased onto Target and
// fast-forwarded into it, so history stays linear.
type GitBackend struct {
	Repo   *gitx.Repo // the work tree where Target is checked out
	Dir    string     // parent directory of the task worktrees
	Target string     // the branch tasks are integrated into
	Prefix string     // task branch names start with it (Workspaces lists those)

	mu sync.Mutex // serializes provision, integration and release
}

func (b *GitBackend) VCS() string { return "git" }

func (b *GitBackend) Path(name string) string { return filepath.Join(b.Dir, name) }

func (b *GitBackend) Provision(ctx context.Context, ws Workspace) (Workspace, error) {
	ws.Path = b.Path(ws.Name)
	if len(ws.Base) != 1 {
		return ws, fmt.Errorf("provision %s: a git worktree starts from one commit, not %d", ws.Name, len(ws.Base))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	sha, err := b.Repo.Resolve(ctx, ws.Base[0])
	if err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	problem, existed, err := b.check(ctx, ws, sha, false)
	if err != nil || problem == "" {
		return ws, err
	}
	// Whatever a provision killed between its steps left (a branch
	// without its worktree, a worktree without its directory) goes.
	if err := b.remove(ctx, ws); err != nil {
		return ws, err
	}
	if existed {
		ws.Remade = problem
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	if err := b.Repo.BranchCreate(ctx, ws.Name, sha); err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	crashPoint("provision-git-branch")
	if err := b.Repo.WorktreeAttach(ctx, ws.Path, ws.Name); err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	return ws, nil
}

func (b *GitBackend) Check(ctx context.Context, ws Workspace, strict bool) (string, error) {
	if ws.Path == "" {
		ws.Path = b.Path(ws.Name)
	}
	if len(ws.Base) != 1 {
		return "", fmt.Errorf("check %s: a git worktree starts from one commit, not %d", ws.Name, len(ws.Base))
	}
	sha, err := b.Repo.Resolve(ctx, ws.Base[0])
	if err != nil {
		return "", fmt.Errorf("check %s: %w", ws.Name, err)
	}
	problem, _, err := b.check(ctx, ws, sha, strict)
	return problem, err
}

// check says how ws differs from what Provision makes: "" when it is its
// worktree, registered with its directory, on its branch at the base (or,
// unless strict, on what a worker committed there). existed reports that
// some of it (worktree, directory or branch) is there.
func (b *GitBackend) check(ctx context.Context, ws Workspace, sha string, strict bool) (problem string, existed bool, err error) {
	wt, err := b.worktree(ctx, ws.Path)
	if err != nil {
		return "", false, err
	}
	dir := fileExists(ws.Path)
	switch {
	case wt == nil:
		_, branch, err := b.Repo.Ref(ctx, "refs/heads/"+ws.Name)
		if err != nil {
			return "", false, err
		}
		return "is not a worktree git knows", branch || dir, nil
	case !dir:
		return fmt.Sprintf("has no directory at %s", ws.Path), true, nil
	case wt.Branch != ws.Name:
		return fmt.Sprintf("is on branch %q, not %q", wt.Branch, ws.Name), true, nil
	case wt.HEAD == sha:
		return "", true, nil
	}
	if !strict {
		ok, err := b.Repo.IsAncestor(ctx, sha, wt.HEAD)
		if err != nil || ok {
			return "", true, err
		}
	}
	return fmt.Sprintf("is not on its base (its HEAD is %s, the ledger says %s)", short(wt.HEAD), short(sha)), true, nil
}

func (b *GitBackend) worktree(ctx context.Context, path string) (*gitx.Worktree, error) {
	wts, err := b.Repo.Worktrees(ctx)
	if err != nil {
		return nil, err
	}
	for i := range wts {
		if wts[i].Path == filepath.Clean(path) {
			return &wts[i], nil
		}
	}
	return nil, nil
}

// remove removes ws's worktree, directory and branch, whichever exist.
func (b *GitBackend) remove(ctx context.Context, ws Workspace) error {
	wt, err := b.worktree(ctx, ws.Path)
	if err != nil {
		return err
	}
	if wt != nil && fileExists(ws.Path) {
		if err := b.Repo.WorktreeForceRemove(ctx, ws.Path); err != nil {
			return err
		}
	}
	if fileExists(ws.Path) {
		if !strings.HasPrefix(ws.Path, b.Dir+string(filepath.Separator)) {
			return fmt.Errorf("worktree directory %s is outside %s: remove it yourself", ws.Path, b.Dir)
		}
		if err := os.RemoveAll(ws.Path); err != nil {
			return fmt.Errorf("remove worktree directory: %w", err)
		}
	}
	if err := b.Repo.WorktreePrune(ctx); err != nil {
		return err
	}
	if _, ok, err := b.Repo.Ref(ctx, "refs/heads/"+ws.Name); err != nil {
		return err
	} else if ok {
		return b.Repo.BranchDelete(ctx, ws.Name)
	}
	return nil
}

// Refresh does nothing: git reads the work tree's files directly.
func (b *GitBackend) Refresh(ctx context.Context, ws Workspace) error {
	if !fileExists(ws.Path) {
		return fmt.Errorf("worktree directory %q is missing", ws.Path)
	}
	return nil
}

func (b *GitBackend) Snapshot(ctx context.Context, ws Workspace) (string, error) {
	if err := b.Refresh(ctx, ws); err != nil {
		return "", err
	}
	w := b.Repo.At(ws.Path)
	if _, err := w.CommitAll(ctx, ws.Message); err != nil {
		return "", err
	}
	return w.Resolve(ctx, "HEAD")
}

func (b *GitBackend) Reset(ctx context.Context, ws Workspace) error {
	if err := b.Refresh(ctx, ws); err != nil {
		return err
	}
	if len(ws.Base) != 1 {
		return fmt.Errorf("reset %s: a git worktree starts from one commit, not %d", ws.Name, len(ws.Base))
	}
	if err := b.Repo.At(ws.Path).ResetTo(ctx, ws.Base[0]); err != nil {
		return fmt.Errorf("reset %s: %w", ws.Name, err)
	}
	return nil
}

func (b *GitBackend) Collect(ctx context.Context, ws Workspace) (Produced, error) {
	p := Produced{Workspace: ws.Name}
	if err := b.Refresh(ctx, ws); err != nil {
		return p, err
	}
	w := b.Repo.At(ws.Path)
	if _, err := w.CommitAll(ctx, ws.Message); err != nil {
		return p, err
	}
	head, err := w.Resolve(ctx, "HEAD")
	if err != nil {
		return p, err
	}
	base, err := w.Resolve(ctx, ws.Base[0])
	if err != nil {
		return p, err
	}
	if head == base {
		return p, nil
	}
	stats, err := w.NumStat(ctx, base, head)
	if err != nil {
		return p, err
	}
	for _, s := range stats {
		p.Files = append(p.Files, FileLines{Path: s.Path, Added: s.Added, Removed: s.Removed})
	}
	if p.Tree, err = w.Tree(ctx, head); err != nil {
		return p, err
	}
	p.Change, p.Commit, p.Changes = head, head, []string{head}
	return p, nil
}

func (b *GitBackend) Integrate(ctx context.Context, p Produced) error {
	if p.Empty() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.Repo.At(b.Path(p.Workspace))
	if err := w.RebaseBranch(ctx, b.Target); err != nil {
		var ce *gitx.ConflictError
		if errors.As(err, &ce) {
			return &ConflictError{Workspace: p.Workspace, Files: ce.Files, Err: err}
		}
		return fmt.Errorf("integrate %s: %w", p.Workspace, err)
	}
	if err := b.Repo.MergeFastForward(ctx, p.Workspace); err != nil {
		return fmt.Errorf("integrate %s: %w", p.Workspace, err)
	}
	return nil
}

// ChangesDiff is the diff from the parent of the oldest of changes (a
// line of commits, newest first) to the newest.
func (b *GitBackend) ChangesDiff(ctx context.Context, changes []string) ([]byte, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	return b.Repo.Diff(ctx, changes[len(changes)-1]+"^", changes[0])
}

func (b *GitBackend) DiffRange(ctx context.Context, from, to string) ([]byte, error) {
	return b.Repo.Diff(ctx, from, to)
}

// Changes reports what the worker left as one change: the task branch's
// commits above the base, taken together.
func (b *GitBackend) Changes(ctx context.Context, ws Workspace) ([]Change, error) {
	head, err := b.Snapshot(ctx, ws)
	if err != nil {
		return nil, err
	}
	return b.changesTo(ctx, ws, head)
}

// Find reads the task branch, which outlives its worktree until Release.
func (b *GitBackend) Find(ctx context.Context, ws Workspace) ([]Change, error) {
	head, ok, err := b.Repo.Ref(ctx, "refs/heads/"+ws.Name)
	if err != nil || !ok {
		return nil, err
	}
	return b.changesTo(ctx, ws, head)
}

func (b *GitBackend) changesTo(ctx context.Context, ws Workspace, head string) ([]Change, error) {
	if len(ws.Base) != 1 {
		return nil, fmt.Errorf("read %s: a git worktree starts from one commit, not %d", ws.Name, len(ws.Base))
	}
	base, err := b.Repo.Resolve(ctx, ws.Base[0])
	if err != nil || base == head {
		return nil, err
	}
	stats, err := b.Repo.NumStat(ctx, base, head)
	if err != nil {
		return nil, err
	}
	c := Change{Change: head, Commit: head}
	for _, s := range stats {
		c.Files = append(c.Files, FileLines{Path: s.Path, Added: s.Added, Removed: s.Removed})
	}
	return []Change{c}, nil
}

func (b *GitBackend) Integrated(ctx context.Context, changes []string) (map[string]bool, error) {
	in := map[string]bool{}
	for _, c := range changes {
		sha, err := b.Repo.Resolve(ctx, c+"^{commit}")
		if err != nil {
			continue // gone
		}
		ok, err := b.Repo.Applied(ctx, b.Target, sha)
		if err != nil {
			return nil, err
		}
		in[c] = ok
	}
	return in, nil
}

// Conflicts lists the target work tree's unmerged files (Integrate
// aborts a conflicting rebase, so they are a person's merge, if any).
func (b *GitBackend) Conflicts(ctx context.Context) ([]string, error) {
	return b.Repo.Unmerged(ctx)
}

func (b *GitBackend) TargetDir() string { return b.Repo.Dir }

func (b *GitBackend) Head(ctx context.Context) (string, error) {
	return b.Repo.Resolve(ctx, "HEAD")
}

func (b *GitBackend) Tip(ctx context.Context) ([]string, error) {
	head, err := b.Head(ctx)
	if err != nil {
		return nil, err
	}
	return []string{head}, nil
}

func (b *GitBackend) ChangedFiles(ctx context.Context, from string) ([]string, error) {
	return b.Repo.ChangedPaths(ctx, from)
}

func (b *GitBackend) Diff(ctx context.Context, from string) ([]byte, error) {
	return b.Repo.DiffFrom(ctx, from)
}

func (b *GitBackend) ReleaseAll(ctx context.Context, wss []Workspace) error {
	for _, ws := range wss {
		if err := b.Release(ctx, ws); err != nil {
			return err
		}
	}
	return nil
}

func (b *GitBackend) Release(ctx context.Context, ws Workspace) error {
	ws.Path = b.Path(ws.Name)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.remove(ctx, ws); err != nil {
		return fmt.Errorf("release %s: %w", ws.Name, err)
	}
	return nil
}

func (b *GitBackend) Workspaces(ctx context.Context) ([]string, error) {
	branches, err := b.Repo.Branches(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for name := range branches {
		if strings.HasPrefix(name, b.Prefix) {
			seen[name] = true
			names = append(names, name)
		}
	}
	wts, err := b.Repo.Worktrees(ctx)
	if err != nil {
		return nil, err
	}
	for _, wt := range wts {
		if n := filepath.Base(wt.Path); strings.HasPrefix(n, b.Prefix) && filepath.Dir(wt.Path) == filepath.Clean(b.Dir) && !seen[n] {
			names = append(names, n)
		}
	}
	return names, nil
}
