package stack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
)

// The workspaces a run builds its tickets in, as its ledger records them.
const (
	// WorkspacesGit: git worktrees, each on the ticket's git branch
	// (engine.GitBackend); "" in a ledger means the same.
	WorkspacesGit = "git"
	// WorkspacesJJ: jj workspaces, the ticket's result a jj commit that
	// publishing puts a bookmark on (engine.JJBackend).
	WorkspacesJJ = "jj"
)

// WorkspacesText names a ledger's workspaces kind for a person.
func WorkspacesText(kind string) string {
	if kind == WorkspacesJJ {
		return "jj workspaces"
	}
	return "git worktrees"
}

// runWorkspaces is what a run needs of the repository's workspaces: a
// ticket's workspace made and removed, what its worker left read from the
// VCS, moved onto a new tip and published.
type runWorkspaces interface {
	Path(name string) string
	Provision(ctx context.Context, ws engine.Workspace) (engine.Workspace, error)
	// Release removes the workspace and, with git, its branch.
	Release(ctx context.Context, ws engine.Workspace) error
	// Keep records what an earlier attempt's worker left in ws (a run
	// halted, killed or aborted before the ticket published) where it
	// outlives the workspace, and returns that commit ("" when the
	// attempt left nothing): git commits the worktree's files and keeps
	// the commit as branch KeptBranch (Release deletes ticket/N); jj
	// snapshots the files into the attempt's commit, which stays visible
	// in the repository.
	Keep(ctx context.Context, ws engine.Workspace) (string, error)
	// KeptBranch is the branch Keep keeps commit of workspace name on,
	// "" when the commit stays visible without one (jj).
	KeptBranch(name, commit string) string
	// Collect reads what ws holds above its base: its Commit is the
	// ticket's result, which later edits in ws do not change.
	Collect(ctx context.Context, ws engine.Workspace) (engine.Produced, error)
	DiffRange(ctx context.Context, from, to string) ([]byte, error)
	// Rebase moves what ws holds above its old base from (head its
	// newest commit) onto onto, and returns head's new commit. A rebase
	// that conflicts is an error and publishes nothing.
	Rebase(ctx context.Context, ws engine.Workspace, onto, from, head string) (string, error)
	// Push publishes commit sha as branch on origin once: never over a
	// remote branch at another commit (gitx.ErrRemoteMoved), never forced.
	// ours says the run owns the name (ticket/N, the integration branch):
	// with jj a local bookmark of it elsewhere (an earlier attempt's) is
	// moved to sha; one the run does not own (prior work) is never moved.
	Push(ctx context.Context, branch, sha string, ours bool) (gitx.PushResult, error)
}

// workspacesKind is the kind of workspaces a new run of the repository
// builds its tickets in: jj workspaces in a jj repository, git worktrees
// in a git clone.
func workspacesKind(v VCS) (string, error) {
	switch v.(type) {
	case *gitVCS:
		return WorkspacesGit, nil
	case *jjVCS:
		return WorkspacesJJ, nil
	}
	return "", exitcode.New(exitcode.Usage, "run builds tickets in git worktrees or jj workspaces: run it in a git clone or a jj repository")
}

// openWorkspaces is the one place a run's backend is chosen, by the kind
// its ledger recorded (see workspacesKind): jj workspaces under dir, or
// git worktrees under dir. A run recorded before runs used jj workspaces
// ("") goes on in git worktrees, of jj's backing git store in a jj
// repository, as it began. It also returns the git repository that holds
// the run's commits (the clone, or jj's store), for ancestry checks.
func openWorkspaces(v VCS, kind, dir string) (runWorkspaces, *gitx.Repo, error) {
	switch v := v.(type) {
	case *gitVCS:
		if kind == WorkspacesJJ {
			return nil, nil, exitcode.New(exitcode.Usage, "this run was started in a jj repository (jj workspaces), but %s is a git clone: resume it in the jj repository", v.g.Dir)
		}
		return gitWorkspaces{b: &engine.GitBackend{Repo: v.g, Dir: dir}}, v.g, nil
	case *jjVCS:
		if kind == WorkspacesJJ {
			return &jjWorkspaces{b: engine.NewJJBackend(v.j, dir, "ticket/"), vcs: v}, v.g, nil
		}
		return gitWorkspaces{b: &engine.GitBackend{Repo: v.g, Dir: dir}}, v.g, nil
	}
	_, err := workspacesKind(v)
	return nil, nil, err
}

// gitWorkspaces are git worktrees, each on the ticket's branch.
type gitWorkspaces struct{ b *engine.GitBackend }

func (g gitWorkspaces) Path(name string) string { return g.b.Path(name) }

func (g gitWorkspaces) Provision(ctx context.Context, ws engine.Workspace) (engine.Workspace, error) {
	return g.b.Provision(ctx, ws)
}

func (g gitWorkspaces) Release(ctx context.Context, ws engine.Workspace) error {
	return g.b.Release(ctx, ws)
}

func (g gitWorkspaces) Keep(ctx context.Context, ws engine.Workspace) (string, error) {
	kept, err := g.b.Keep(ctx, ws, func(commit string) string { return g.KeptBranch(ws.Name, commit) })
	if err != nil {
		return "", fmt.Errorf("keep what %s holds: %w", g.b.Path(ws.Name), err)
	}
	return kept, nil
}

// KeptBranch is the branch that keeps an earlier attempt's commit of a
// ticket branch (ticket/3-kept-1a2b3c4d5e6f): beside the ticket's, never
// under it, and one per commit.
func (gitWorkspaces) KeptBranch(branch, commit string) string {
	return branch + "-kept-" + short(commit)
}

func (g gitWorkspaces) Collect(ctx context.Context, ws engine.Workspace) (engine.Produced, error) {
	return g.b.Collect(ctx, ws)
}

func (g gitWorkspaces) DiffRange(ctx context.Context, from, to string) ([]byte, error) {
	return g.b.DiffRange(ctx, from, to)
}

func (g gitWorkspaces) Rebase(ctx context.Context, ws engine.Workspace, onto, from, _ string) (string, error) {
	if err := g.b.Repo.RebaseOnto(ctx, ws.Path, onto, from, ws.Name); err != nil {
		return "", err
	}
	return g.b.Repo.At(ws.Path).Resolve(ctx, "HEAD")
}

func (g gitWorkspaces) Push(ctx context.Context, branch, sha string, _ bool) (gitx.PushResult, error) {
	return g.b.Repo.Push(ctx, Remote, branch, sha)
}

// jjWorkspaces are jj workspaces of the repository; a ticket's branch is
// a bookmark, set on its commit when it publishes and pushed through jj.
type jjWorkspaces struct {
	b   *engine.JJBackend
	vcs *jjVCS
}

func (j *jjWorkspaces) Path(name string) string { return j.b.Path(name) }

// changes names the base commits (git SHAs, as the ledger records them)
// by their jj change IDs, as the jj backend compares a workspace's
// parents with its base.
func (j *jjWorkspaces) changes(ctx context.Context, ws engine.Workspace) (engine.Workspace, error) {
	base := make([]string, 0, len(ws.Base))
	for _, c := range ws.Base {
		ids, err := j.vcs.j.ChangeIDs(ctx, jjx.ID(c))
		if err != nil {
			return ws, fmt.Errorf("read the change of %s: %w", short(c), err)
		}
		if len(ids) != 1 {
			return ws, fmt.Errorf("read the change of %s: jj names %d revisions", short(c), len(ids))
		}
		base = append(base, ids[0])
	}
	ws.Base = base
	return ws, nil
}

func (j *jjWorkspaces) Provision(ctx context.Context, ws engine.Workspace) (engine.Workspace, error) {
	asked := ws.Base
	ws, err := j.changes(ctx, ws)
	if err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	// A ticket's workspace is named for its branch (ticket/2): jj makes
	// the workspace's folder, not the folders above it.
	if err := os.MkdirAll(filepath.Dir(j.b.Path(ws.Name)), 0o755); err != nil {
		return ws, fmt.Errorf("provision %s: %w", ws.Name, err)
	}
	ws, err = j.b.Provision(ctx, ws)
	ws.Base = asked
	return ws, err
}

// Release forgets the workspace and removes its folder, then abandons
// its working-copy change when that is an empty, described head that
// jj keeps (jjx.LeftoverHead): the baseline's, or the one above a
// ticket's pushed commit. A change that holds work stays.
func (j *jjWorkspaces) Release(ctx context.Context, ws engine.Workspace) error {
	left, err := j.vcs.j.Log(ctx, jjx.LeftoverHead(ws.Name))
	if err != nil {
		return fmt.Errorf("release %s: read its change: %w", ws.Name, err)
	}
	if err := j.b.Release(ctx, ws); err != nil {
		return err
	}
	var ids []string
	for _, c := range left {
		ids = append(ids, jjx.ID(c.CommitID))
	}
	if len(ids) == 0 {
		return nil
	}
	if err := j.vcs.j.Abandon(ctx, ids...); err != nil {
		return fmt.Errorf("release %s: abandon its empty change: %w", ws.Name, err)
	}
	return nil
}

func (*jjWorkspaces) KeptBranch(string, string) string { return "" }

func (j *jjWorkspaces) Keep(ctx context.Context, ws engine.Workspace) (string, error) {
	ws.Path = j.b.Path(ws.Name)
	if _, err := os.Stat(ws.Path); err != nil {
		return "", nil // gone: nothing left to record
	}
	p, err := j.b.Collect(ctx, ws)
	if err != nil {
		return "", fmt.Errorf("record what %s holds: %w", ws.Path, err)
	}
	return p.Commit, nil
}

// Collect reads what the worker left and then seals it: the workspace
// gets a new empty change on top, described as the ticket's, so the
// collected commit is not the working copy any more and what runs in the
// workspace later (checks, a fixer) lands in that new change.
func (j *jjWorkspaces) Collect(ctx context.Context, ws engine.Workspace) (engine.Produced, error) {
	p, err := j.b.Collect(ctx, ws)
	if err != nil || p.Empty() {
		return p, err
	}
	r := j.vcs.j.At(j.b.Path(ws.Name))
	at, err := r.One(ctx, "@")
	if err != nil {
		return p, fmt.Errorf("collect %s: read its working copy: %w", ws.Name, err)
	}
	switch {
	case at.CommitID == p.Commit:
		if _, err := r.New(ctx, ws.Message, true, "@"); err != nil {
			return p, fmt.Errorf("collect %s: seal its change: %w", ws.Name, err)
		}
	case strings.TrimSpace(at.Description) == "":
		// An empty undescribed @ the worker left above its commits (jj
		// commit): described, so what a fixer puts there can be pushed.
		if err := r.Describe(ctx, "@", ws.Message); err != nil {
			return p, fmt.Errorf("collect %s: describe its working copy: %w", ws.Name, err)
		}
	}
	return p, nil
}

func (j *jjWorkspaces) DiffRange(ctx context.Context, from, to string) ([]byte, error) {
	return j.b.DiffRange(ctx, from, to)
}

// Rebase moves the ticket's commits (from..head, and the workspace's
// working copy above them) onto onto, run from the repository's own
// workspace so the ticket's working copy is not snapshotted: what checks
// left there is not published. head is found again by its change ID.
func (j *jjWorkspaces) Rebase(ctx context.Context, ws engine.Workspace, onto, from, head string) (string, error) {
	r := j.vcs.j
	change, err := r.ChangeIDs(ctx, jjx.ID(head))
	if err != nil || len(change) != 1 {
		return "", fmt.Errorf("rebase %s: read the change of %s: %v (%d found)", ws.Name, short(head), err, len(change))
	}
	if err := r.RebaseSource(ctx, jjx.Roots(jjx.Range(jjx.ID(from), jjx.ID(head))), jjx.ID(onto)); err != nil {
		return "", fmt.Errorf("rebase %s onto %s: %w", ws.Name, short(onto), err)
	}
	ids, err := r.CommitIDs(ctx, jjx.ID(change[0]))
	if err != nil || len(ids) != 1 {
		return "", fmt.Errorf("rebase %s: read %s after the rebase: %v (%d commits)", ws.Name, change[0], err, len(ids))
	}
	conflicted, err := r.ConflictedRevisions(ctx, jjx.Range(jjx.ID(onto), jjx.ID(ids[0])))
	if err != nil {
		return "", fmt.Errorf("rebase %s: check for conflicts: %w", ws.Name, err)
	}
	if len(conflicted) == 0 {
		return ids[0], nil
	}
	// Taken back, as git's rebase --abort does: jj's rebase of the
	// conflicted commits onto their old base gives their own trees again.
	back := ""
	if err := r.RebaseSource(ctx, jjx.Roots(jjx.Range(jjx.ID(onto), jjx.ID(change[0]))), jjx.ID(from)); err != nil {
		back = fmt.Sprintf(" (and moving them back onto %s: %v)", short(from), err)
	}
	return "", fmt.Errorf("rebase %s onto %s: %d commit(s) conflict (jj log -r 'conflicts()'); taken back onto %s%s, nothing was pushed: resume cuts the ticket again from the tip",
		ws.Name, short(onto), len(conflicted), short(from), back)
}

// Push sets bookmark branch on commit sha and pushes it with jj (tracked
// first, as a first push needs): origin is asked first, and a branch
// there at another commit is refused, never overwritten.
func (j *jjWorkspaces) Push(ctx context.Context, branch, sha string, ours bool) (gitx.PushResult, error) {
	local, ok, err := j.vcs.LocalSHA(ctx, branch)
	if err != nil {
		return "", err
	}
	switch {
	case ok && local == sha:
	case ok && !ours:
		return "", exitcode.New(exitcode.NeedsChoice,
			"bookmark %s moved since the run pinned it (it is at %s, the run publishes %s): set it back with jj bookmark set %s -r %s --allow-backwards, or start a new run, then gh specstack resume",
			branch, short(local), short(sha), branch, sha)
	default:
		// A bookmark of the run's own may sit on an earlier attempt of
		// the ticket (a resumed run cut it again): it was never pushed
		// (origin is checked before a ticket enters the publish lane),
		// and that attempt's commit stays visible in jj.
		if err := j.vcs.j.BookmarkSet(ctx, branch, jjx.ID(sha), true); err != nil {
			return "", fmt.Errorf("set bookmark %s on %s: %w", branch, short(sha), err)
		}
	}
	return j.vcs.Publish(ctx, branch)
}
