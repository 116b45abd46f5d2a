package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/jjx"
)

// JJBackend is the Backend on jj workspaces: each task a workspace of
// Pool, integrated by squashing into the orchestrating workspace's @.
type JJBackend struct {
	Repo   *jjx.Repo // the orchestrating workspace: its @ is the target
	Pool   *jjx.Pool
	Prefix string // task workspace names start with it (Workspaces lists those)
}

// NewJJBackend returns the jj backend for repo, its task workspaces under
// dir.
func NewJJBackend(repo *jjx.Repo, dir, prefix string) *JJBackend {
	return &JJBackend{Repo: repo, Pool: &jjx.Pool{Repo: repo, Dir: dir}, Prefix: prefix}
}

func (b *JJBackend) VCS() string { return "jj" }

func (b *JJBackend) Path(name string) string { return filepath.Join(b.Pool.Dir, name) }

func (b *JJBackend) Provision(ctx context.Context, ws Workspace) (Workspace, error) {
	ws.Path = b.Path(ws.Name)
	_, err := b.Pool.Provision(ctx, ws.Name, ws.Message, ws.Base...)
	if err == nil {
		return ws, nil
	}
	// A provision killed part-way (jj's `workspace add` is two operations;
	// the first leaves the working copy on root()) or after its last step.
	ok, rerr := b.asAsked(ctx, ws)
	if rerr != nil {
		return ws, errors.Join(err, rerr)
	}
	if ok {
		return ws, nil
	}
	if err := b.remove(ctx, ws); err != nil {
		return ws, err
	}
	if _, err := b.Pool.Provision(ctx, ws.Name, ws.Message, ws.Base...); err != nil {
		return ws, err
	}
	return ws, nil
}

// asAsked reports whether workspace ws exists as Provision makes it:
// known to jj, with its directory, its working copy on the base (or on
// what a worker committed there).
func (b *JJBackend) asAsked(ctx context.Context, ws Workspace) (bool, error) {
	names, err := b.Repo.Workspaces(ctx)
	if err != nil {
		return false, fmt.Errorf("list workspaces: %w", err)
	}
	known := false
	for _, n := range names {
		known = known || n.Name == ws.Name
	}
	if !known || !fileExists(ws.Path) {
		return false, nil
	}
	at, err := b.head(ctx, ws)
	if err != nil {
		return false, nil // a working copy jj cannot read: made again
	}
	if len(ws.Base) == 0 || sameSet(at.ParentChangeIDs, ws.Base) {
		return true, nil
	}
	// A worker may have committed on top of the base.
	in, err := b.Repo.At(ws.Path).Contained(ctx, union(ws.Base), "::@-")
	if err != nil {
		return false, fmt.Errorf("check workspace %s against its base: %w", ws.Name, err)
	}
	return len(in) > 0 && !slices.Contains(slices.Collect(maps.Values(in)), false), nil
}

// remove forgets the workspace and removes its directory (only under
// the pool's directory).
func (b *JJBackend) remove(ctx context.Context, ws Workspace) error {
	if err := b.Repo.WorkspaceForget(ctx, ws.Name); err != nil && !errors.Is(err, jjx.ErrNoWorkspace) {
		return fmt.Errorf("forget workspace %s: %w", ws.Name, err)
	}
	if !strings.HasPrefix(ws.Path, b.Pool.Dir+string(filepath.Separator)) {
		return fmt.Errorf("workspace directory %s is outside %s: remove it yourself", ws.Path, b.Pool.Dir)
	}
	if err := os.RemoveAll(ws.Path); err != nil {
		return fmt.Errorf("remove workspace directory: %w", err)
	}
	return nil
}

// head snapshots the workspace (updating a stale working copy) and reads
// its @.
func (b *JJBackend) head(ctx context.Context, ws Workspace) (jjx.CommitDetail, error) {
	cs, err := b.logIn(ctx, ws, "@")
	if err != nil {
		return jjx.CommitDetail{}, err
	}
	if len(cs) != 1 {
		return jjx.CommitDetail{}, fmt.Errorf("workspace %s: @ names %d revisions", ws.Name, len(cs))
	}
	return cs[0], nil
}

// logIn reads revset in the workspace, which snapshots it first; a stale
// working copy is updated and read again.
func (b *JJBackend) logIn(ctx context.Context, ws Workspace, revset string) ([]jjx.CommitDetail, error) {
	if !fileExists(ws.Path) {
		return nil, fmt.Errorf("workspace directory %q is missing", ws.Path)
	}
	r := b.Repo.At(ws.Path)
	cs, err := r.LogDetail(ctx, revset)
	if errors.Is(err, jjx.ErrStale) {
		if uerr := r.UpdateStale(ctx); uerr == nil {
			cs, err = r.LogDetail(ctx, revset)
		}
	}
	return cs, err
}

func (b *JJBackend) Refresh(ctx context.Context, ws Workspace) error {
	_, err := b.head(ctx, ws)
	return err
}

func (b *JJBackend) Collect(ctx context.Context, ws Workspace) (Produced, error) {
	p := Produced{Workspace: ws.Name}
	cs, err := b.logIn(ctx, ws, fmt.Sprintf("(%s)..@", union(ws.Base)))
	if err != nil {
		return p, err
	}
	seen := map[string]int{}
	for _, c := range cs {
		if c.Empty && len(c.Files) == 0 && len(p.Changes) == 0 && len(cs) > 1 {
			continue // an empty @ above what the worker committed
		}
		p.Changes = append(p.Changes, c.ChangeID)
		for _, f := range c.Files {
			i, ok := seen[f.Path]
			if !ok {
				i = len(p.Files)
				seen[f.Path] = i
				p.Files = append(p.Files, FileLines{Path: f.Path})
			}
			p.Files[i].Added += f.Added
			p.Files[i].Removed += f.Removed
		}
	}
	if len(p.Files) == 0 {
		return Produced{Workspace: ws.Name}, nil
	}
	p.Change = p.Changes[0]
	for _, c := range cs {
		if c.ChangeID == p.Change {
			p.Commit, p.Tree = c.CommitID, c.CommitID
		}
	}
	return p, nil
}

func (b *JJBackend) Integrate(ctx context.Context, p Produced) error {
	if p.Empty() {
		return nil
	}
	if _, err := b.Repo.SquashInto(ctx, jjx.SquashOptions{From: union(p.Changes), Into: "@"}); err != nil {
		return fmt.Errorf("integrate %s: squash into @: %w", p.Workspace, err)
	}
	files, err := b.Repo.ConflictedFiles(ctx, "@")
	if err != nil {
		return fmt.Errorf("integrate %s: check @ for conflicts: %w", p.Workspace, err)
	}
	if len(files) > 0 {
		return &ConflictError{Workspace: p.Workspace, Files: files}
	}
	return nil
}

func (b *JJBackend) Release(ctx context.Context, ws Workspace) error {
	return b.Pool.Release(ctx, b.Pool.Attach(ws.Name))
}

func (b *JJBackend) Workspaces(ctx context.Context) ([]string, error) {
	wss, err := b.Repo.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, w := range wss {
		if strings.HasPrefix(w.Name, b.Prefix) {
			names = append(names, w.Name)
		}
	}
	return names, nil
}
