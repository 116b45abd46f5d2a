package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/confine"
)

// GitBackend is the part of a Backend on git worktrees that gh-specstack
// builds its tickets with (jj-kaisen and jj-openspec integrate through
// the jj backend): each task a worktree on a new branch (named as the
// workspace) at its base SHA; what the worker leaves is committed on that
// branch, and its commits are read from git. Provision, Collect and
// Release keep the Backend contract (TestBackendContract holds them to
// it).
type GitBackend struct {
	Repo *gitx.Repo // the repository the worktrees belong to
	Dir  string     // parent directory of the task worktrees

	mu sync.Mutex // serializes provision and release
}

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
	problem, existed, err := b.check(ctx, ws, sha)
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

// check says how ws differs from what Provision makes: "" when it is its
// worktree, registered with its directory, on its branch at the base (or
// on what a worker committed there). existed reports that some of it
// (worktree, directory or branch) is there.
func (b *GitBackend) check(ctx context.Context, ws Workspace, sha string) (problem string, existed bool, err error) {
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
	if ok, err := b.Repo.IsAncestor(ctx, sha, wt.HEAD); err != nil || ok {
		return "", true, err
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
		if err := confine.RemoveUnder(b.Dir, ws.Path); err != nil {
			return fmt.Errorf("worktree directory: %w", err)
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

// refresh checks the worktree is there: git reads its files directly.
func (b *GitBackend) refresh(ws Workspace) error {
	if !fileExists(ws.Path) {
		return fmt.Errorf("worktree directory %q is missing", ws.Path)
	}
	return nil
}

func (b *GitBackend) Collect(ctx context.Context, ws Workspace) (Produced, error) {
	p := Produced{Workspace: ws.Name}
	if err := b.refresh(ws); err != nil {
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
	if err := b.offBase(ctx, w, ws, head); err != nil {
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

// offBase checks that the worktree's HEAD (head) holds what its branch
// does: a worker that committed on its branch and then left it (git
// checkout, switch or reset elsewhere) made work that reading HEAD would
// not collect, and Release would delete with the branch. (A HEAD that
// does not descend from its base is the caller's to name: gh-specstack
// says the worker rewound its branch.)
func (b *GitBackend) offBase(ctx context.Context, w *gitx.Repo, ws Workspace, head string) error {
	tip, ok, err := b.Repo.Ref(ctx, "refs/heads/"+ws.Name)
	if err != nil || !ok || tip == head {
		return err
	}
	if in, err := w.IsAncestor(ctx, tip, head); err != nil {
		return err
	} else if !in {
		return &OffBaseError{Workspace: ws.Name, Detail: fmt.Sprintf("its branch %s is at %s, which its HEAD %s does not hold: `git log %s`", ws.Name, short(tip), short(head), ws.Name)}
	}
	return nil
}

// Keep commits what ws's worktree holds above its base and keeps that
// commit as branch keep (which Release, deleting ws's own branch, leaves
// alone), and returns it: "" when the worktree is gone, holds nothing, or
// is no worktree of the repository on ws's branch (a half-made one: a
// directory git would read as part of whatever repository encloses it).
func (b *GitBackend) Keep(ctx context.Context, ws Workspace, keep func(commit string) string) (string, error) {
	ws.Path = b.Path(ws.Name)
	wt, err := b.worktree(ctx, ws.Path)
	if err != nil || wt == nil || wt.Branch != ws.Name || !fileExists(ws.Path) {
		return "", err
	}
	p, err := b.Collect(ctx, ws)
	if err != nil || p.Empty() {
		return "", err
	}
	name := keep(p.Commit)
	if sha, ok, err := b.Repo.Ref(ctx, "refs/heads/"+name); err != nil {
		return "", err
	} else if ok && sha == p.Commit {
		return p.Commit, nil // kept by an earlier Keep
	}
	if err := b.Repo.BranchCreate(ctx, name, p.Commit); err != nil {
		return "", err
	}
	return p.Commit, nil
}

func (b *GitBackend) DiffRange(ctx context.Context, from, to string) ([]byte, error) {
	return b.Repo.Diff(ctx, from, to)
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
