package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/jjx"
)

var (
	_ Backend         = (*JJBackend)(nil)
	_ Undoer          = (*JJBackend)(nil)
	_ BatchIntegrator = (*JJBackend)(nil)
	_ BatchChecker    = (*JJBackend)(nil)
	_ Historian       = (*JJBackend)(nil)
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
	known, lerr := b.known(ctx)
	if lerr != nil || (!known[ws.Name] && !fileExists(ws.Path)) {
		return ws, err // nothing of that name: the provision itself failed
	}
	problem, cerr := b.check(ctx, ws, known, true)
	if cerr != nil {
		return ws, errors.Join(err, cerr)
	}
	if problem == "" {
		return ws, nil
	}
	if err := b.remove(ctx, ws, known); err != nil {
		return ws, err
	}
	if _, err := b.Pool.Provision(ctx, ws.Name, ws.Message, ws.Base...); err != nil {
		return ws, err
	}
	ws.Remade = problem
	return ws, nil
}

func (b *JJBackend) Check(ctx context.Context, ws Workspace, strict bool) (string, error) {
	known, err := b.known(ctx)
	if err != nil {
		return "", err
	}
	return b.check(ctx, ws, known, strict)
}

// CheckAll is Check for many workspaces (BatchChecker): one `jj
// workspace list` and one `jj log` over the working copies jj knows of
// them (read as jj recorded them, no working copy snapshotted) pass the
// workspaces whose working copy sits exactly on its base; each other one
// is checked as Check does. When jj cannot list the workspaces or read
// their working copies, it returns that error.
func (b *JJBackend) CheckAll(ctx context.Context, wss []Workspace, strict bool) ([]string, error) {
	known, err := b.known(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ws := range wss {
		if known[ws.Name] {
			names = append(names, ws.Name)
		}
	}
	wcs, err := b.Repo.WorkingCopies(ctx, names)
	if err != nil {
		// Not "nothing recorded": checked one by one, a working copy jj
		// cannot read would be called one to remake.
		return nil, fmt.Errorf("read the working copies of workspaces %s: %w", strings.Join(names, ", "), err)
	}
	problems := make([]string, len(wss))
	for i, ws := range wss {
		if ws.Path == "" {
			ws.Path = b.Path(ws.Name)
		}
		if wc, ok := wcs[ws.Name]; ok && fileExists(ws.Path) && sameSet(wc.ParentChangeIDs, ws.Base) {
			continue
		}
		if problems[i], err = b.check(ctx, ws, known, strict); err != nil {
			return nil, err
		}
	}
	return problems, nil
}

// known lists the names of the workspaces jj knows.
func (b *JJBackend) known(ctx context.Context) (map[string]bool, error) {
	wss, err := b.Repo.Workspaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	known := map[string]bool{}
	for _, w := range wss {
		known[w.Name] = true
	}
	return known, nil
}

// check says how workspace ws differs from what Provision makes: "" when
// it is as asked. known holds the names jj lists. Strict wants the
// working copy's parents to be exactly the base; otherwise the base must
// be among the ancestors of the working copy's parents (a worker may
// have committed on top of it). A read stopped by a cancelled context or
// a deadline is returned as an error, never as a problem: a problem gets
// the workspace forgotten, deleted and provisioned again.
func (b *JJBackend) check(ctx context.Context, ws Workspace, known map[string]bool, strict bool) (string, error) {
	if ws.Path == "" {
		ws.Path = b.Path(ws.Name)
	}
	if !known[ws.Name] {
		return "is unknown to jj", nil
	}
	if !fileExists(ws.Path) {
		return fmt.Sprintf("has no directory at %s", ws.Path), nil
	}
	at, err := b.logIn(ctx, ws, "@", "")
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The read was stopped, not answered: the workspace may be fine,
		// and calling it one to remake would forget and delete it.
		return "", fmt.Errorf("check workspace %s: the read of its working copy was stopped (nothing forgotten or removed): %w", ws.Name, err)
	}
	if errors.Is(err, jjx.ErrRefused) {
		// Its files are fine but not all recorded: remaking it would
		// delete the ones jj left out.
		return "", fmt.Errorf("check workspace %s (nothing forgotten or removed): %w", ws.Name, err)
	}
	if err != nil || len(at) != 1 {
		return fmt.Sprintf("has a working copy jj cannot read (%v)", err), nil
	}
	parents := at[0].ParentChangeIDs
	if sameSet(parents, ws.Base) {
		return "", nil
	}
	if !strict && len(ws.Base) > 0 {
		in, err := b.Repo.At(ws.Path).Contained(ctx, jjx.Union(ws.Base...), jjx.Ancestors("@-"))
		if err != nil {
			return "", fmt.Errorf("check workspace %s against its base: %w", ws.Name, err)
		}
		if !slices.ContainsFunc(ws.Base, func(c string) bool { return !in[c] }) {
			return "", nil
		}
	}
	var names []string
	for i, id := range parents {
		if i < len(at[0].Parents) && jjx.IsRoot(at[0].Parents[i]) {
			names = append(names, "root()")
		} else {
			names = append(names, short(id))
		}
	}
	return fmt.Sprintf("is not on its base (its working copy's parent is %s, the ledger says %s)", strings.Join(names, ", "), shortAll(ws.Base)), nil
}

// remove forgets the workspace (when jj knows it) and removes its
// directory (only under the pool's directory).
func (b *JJBackend) remove(ctx context.Context, ws Workspace, known map[string]bool) error {
	if known[ws.Name] {
		if err := b.Repo.WorkspaceForget(ctx, ws.Name); err != nil && !errors.Is(err, jjx.ErrNoWorkspace) {
			return fmt.Errorf("forget workspace %s: %w", ws.Name, err)
		}
		delete(known, ws.Name)
	}
	if fileExists(ws.Path) {
		if err := confine.RemoveUnder(b.Pool.Dir, ws.Path); err != nil {
			return fmt.Errorf("workspace directory: %w", err)
		}
	}
	return nil
}

// head snapshots the workspace (updating a stale working copy) and reads
// its @.
func (b *JJBackend) head(ctx context.Context, ws Workspace) (jjx.CommitDetail, error) {
	cs, err := b.logIn(ctx, ws, "@", "")
	if err != nil {
		return jjx.CommitDetail{}, err
	}
	if len(cs) != 1 {
		return jjx.CommitDetail{}, fmt.Errorf("workspace %s: @ names %d revisions", ws.Name, len(cs))
	}
	return cs[0], nil
}

// logIn reads revset in the workspace, which snapshots it first; a stale
// working copy is updated and read again. Each revision in the revset
// marked ("" for none) is marked (CommitDetail.Marked).
func (b *JJBackend) logIn(ctx context.Context, ws Workspace, revset, marked string) ([]jjx.CommitDetail, error) {
	if !fileExists(ws.Path) {
		return nil, fmt.Errorf("workspace directory %q is missing", ws.Path)
	}
	return logStrict(ctx, b.Repo.At(ws.Path), revset, marked)
}

// logStrict reads revset in r's workspace, which snapshots it first; a
// stale working copy is updated and read again. Strict: a file jj leaves
// out of the snapshot (too big) would be lost with the workspace.
func logStrict(ctx context.Context, r *jjx.Repo, revset, marked string) ([]jjx.CommitDetail, error) {
	r.Strict = true
	read := func() ([]jjx.CommitDetail, error) {
		if marked == "" {
			return r.LogDetail(ctx, revset)
		}
		return r.LogDetailMarked(ctx, revset, marked)
	}
	cs, err := read()
	if errors.Is(err, jjx.ErrStale) {
		if uerr := r.UpdateStale(ctx); uerr == nil {
			cs, err = read()
		}
	}
	return cs, err
}

func (b *JJBackend) Refresh(ctx context.Context, ws Workspace) error {
	_, err := b.head(ctx, ws)
	return err
}

func (b *JJBackend) Snapshot(ctx context.Context, ws Workspace) (string, error) {
	at, err := b.head(ctx, ws)
	if err != nil {
		return "", err
	}
	return at.CommitID, nil
}

func (b *JJBackend) Reset(ctx context.Context, ws Workspace) error {
	old, err := b.logIn(ctx, ws, jjx.Range(jjx.Union(ws.Base...), "@"), "")
	if err != nil {
		return fmt.Errorf("read the workspace before restarting its worker: %w", err)
	}
	r := b.Repo.At(ws.Path)
	if _, err := r.New(ctx, ws.Message, true, ws.Base...); err != nil {
		return fmt.Errorf("reset its workspace: %w", err)
	}
	var ids []string
	for _, c := range old {
		ids = append(ids, c.CommitID)
	}
	if len(ids) > 0 {
		if err := r.Abandon(ctx, ids...); err != nil {
			return fmt.Errorf("abandon the half-done change: %w", err)
		}
	}
	return nil
}

func (b *JJBackend) Collect(ctx context.Context, ws Workspace) (Produced, error) {
	p := Produced{Workspace: ws.Name}
	cs, err := b.logIn(ctx, ws, jjx.Range(jjx.Union(ws.Base...), "@"), "")
	if err != nil {
		return p, err
	}
	if err := offBase(ws, cs); err != nil {
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
	conflicted, err := b.Repo.SquashInto(ctx, jjx.SquashOptions{From: jjx.Union(p.Changes...), Into: "@"})
	if err != nil {
		return fmt.Errorf("integrate %s: squash into @: %w", p.Workspace, err)
	}
	if !conflicted {
		return nil // jj names a conflicted @ in what it prints; Conflicts is the authoritative check
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

// IntegrateAll squashes every change of ps into @ in one jj operation
// (BatchIntegrator) and returns that operation's ID: the newest one
// after the squash, when its only parent is the operation read (after a
// snapshot) just before it. When another operation came in between or
// after, it cannot tell the squash from it and returns "": the squash
// then cannot be taken back.
func (b *JJBackend) IntegrateAll(ctx context.Context, ps []Produced) (string, error) {
	var all, names []string
	for _, p := range ps {
		if !p.Empty() {
			all = append(all, p.Changes...)
			names = append(names, p.Workspace)
		}
	}
	if len(all) == 0 {
		return "", nil
	}
	before, err := b.Repo.OpHead(ctx)
	if err != nil {
		return "", fmt.Errorf("integrate %s: read the operation log: %w", strings.Join(names, ", "), err)
	}
	if err := b.Repo.Squash(ctx, jjx.SquashOptions{From: jjx.Union(all...), Into: "@"}); err != nil {
		return "", fmt.Errorf("integrate %s: squash into @: %w", strings.Join(names, ", "), err)
	}
	op, err := b.Repo.NewestOp(ctx)
	if err != nil || len(op.Parents) != 1 || op.Parents[0] != before {
		return "", nil // squashed; only taking it back is lost
	}
	return op.ID, nil
}

// UndoIntegrateAll restores the operation before op, IntegrateAll's
// squash, when op is still the newest operation (read after a snapshot,
// so edits in @ since count as one), so nothing else (of this process or
// another) is undone with it.
func (b *JJBackend) UndoIntegrateAll(ctx context.Context, op string) (bool, error) {
	if op == "" {
		return false, nil
	}
	ops, err := b.Repo.OpLog(ctx, 1)
	if err != nil {
		return false, fmt.Errorf("read the operation log: %w", err)
	}
	if len(ops) != 1 || ops[0].ID != op || len(ops[0].Parents) != 1 {
		return false, nil
	}
	if err := b.Repo.OpRestore(ctx, ops[0].Parents[0]); err != nil {
		return false, fmt.Errorf("take back the squash: %w", err)
	}
	return true, nil
}

func (b *JJBackend) ChangesDiff(ctx context.Context, changes []string) ([]byte, error) {
	return b.Repo.DiffGitOf(ctx, jjx.Union(changes...))
}

func (b *JJBackend) DiffRange(ctx context.Context, from, to string) ([]byte, error) {
	return b.Repo.DiffGit(ctx, from, to)
}

func (b *JJBackend) Find(ctx context.Context, ws Workspace) ([]Change, error) {
	cs, err := b.Repo.Log(ctx, jjx.LatestDescribed(jjx.Union(ws.Base...), ws.Message))
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	ds, err := b.Repo.LogDetail(ctx, jjx.Range(jjx.Union(ws.Base...), jjx.ID(cs[0].CommitID)))
	return changesOf(ds), err
}

func changesOf(cs []jjx.CommitDetail) []Change {
	var out []Change
	for _, c := range cs {
		ch := Change{Change: c.ChangeID, Commit: c.CommitID, Divergent: c.Divergent, Empty: c.Empty}
		for _, f := range c.Files {
			ch.Files = append(ch.Files, FileLines{Path: f.Path, Added: f.Added, Removed: f.Removed})
		}
		out = append(out, ch)
	}
	return out
}

func (b *JJBackend) Integrated(ctx context.Context, changes []string) (map[string]bool, error) {
	if len(changes) == 0 {
		return map[string]bool{}, nil
	}
	return b.Repo.Contained(ctx, jjx.PresentUnion(changes...), jjx.Ancestors("@"))
}

func (b *JJBackend) Conflicts(ctx context.Context) ([]string, error) {
	return b.Repo.ConflictedFiles(ctx, "@")
}

func (b *JJBackend) TargetDir() string { return b.Repo.Root }

func (b *JJBackend) Head(ctx context.Context) (string, error) {
	at, err := b.Repo.One(ctx, "@")
	if err != nil {
		return "", err
	}
	return at.CommitID, nil
}

func (b *JJBackend) Tip(ctx context.Context) ([]string, error) {
	ids, err := b.Repo.ChangeIDs(ctx, "@")
	if err != nil {
		return nil, err
	}
	if len(ids) != 1 {
		return nil, fmt.Errorf("@ names %d changes", len(ids))
	}
	return ids, nil
}

func (b *JJBackend) ChangedFiles(ctx context.Context, from string) ([]string, error) {
	return b.Repo.ChangedPaths(ctx, from, "@")
}

func (b *JJBackend) Diff(ctx context.Context, from string) ([]byte, error) {
	return b.Repo.DiffGit(ctx, from, "@")
}

// ReleaseAll forgets the workspaces in one jj call and removes their
// directories; when one of them is gone already, it releases them one
// by one.
func (b *JJBackend) ReleaseAll(ctx context.Context, wss []Workspace) error {
	if len(wss) == 0 {
		return nil
	}
	names := make([]string, len(wss))
	for i, ws := range wss {
		names[i] = ws.Name
	}
	if err := b.Repo.WorkspaceForget(ctx, names...); err != nil {
		for _, ws := range wss {
			if err := b.Release(ctx, ws); err != nil {
				return err
			}
		}
	}
	for _, n := range names {
		confine.RemoveUnder(b.Pool.Dir, b.Path(n)) // the names are the pool's own
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

// RestoreOp puts the whole repository back as it was at operation op
// (`jj op restore`).
// Abandon abandons the commits (Abandoner).
func (b *JJBackend) Abandon(ctx context.Context, commits ...string) error {
	return b.Repo.Abandon(ctx, commits...)
}

func (b *JJBackend) RestoreOp(ctx context.Context, op string) error {
	return b.Repo.OpRestore(ctx, op)
}

// WorkSince lists the revisions of changes made since op that are none
// of the run's (Bystander): "change ID "subject"", newest first.
func (b *JJBackend) WorkSince(ctx context.Context, op string, workspaces, changes []string) ([]string, error) {
	own := make([]string, 0, len(workspaces)+1)
	for _, w := range workspaces {
		own = append(own, jjx.WorkspaceHead(w))
	}
	own = append(own, jjx.PresentUnion(changes...))
	cs, err := b.Repo.ChangesSince(ctx, op, jjx.Ancestors(strings.Join(own, " | ")))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		subject, _, _ := strings.Cut(c.Description, "\n")
		out[i] = fmt.Sprintf("change %s %q", short(c.ChangeID), cmp.Or(subject, "(no description)"))
	}
	return out, nil
}

// RecordedBy names the operation of workspace that recorded its working
// copy's edits: the newest snapshot, failing that its newest operation.
func (b *JJBackend) RecordedBy(ctx context.Context, workspace string) string {
	ops, err := b.Repo.OpLog(ctx, 30)
	if err != nil {
		return "the operation log could not be read"
	}
	// The snapshot that picked the edits up; failing that, the newest
	// operation of the workspace (a merge of concurrent operations).
	for _, snapOnly := range []bool{true, false} {
		for _, op := range ops {
			if op.WorkspaceName != workspace {
				continue
			}
			if snapOnly && !op.IsSnapshot && !strings.HasPrefix(op.Description, "snapshot working copy") {
				continue
			}
			return fmt.Sprintf("recorded by operation %s (%s, workspace %s)", short(op.ID), op.Description, op.WorkspaceName)
		}
	}
	return "no operation of the orchestrating workspace recorded it"
}

// maxOpsRead bounds how far back Rewrote reads the operation log.
const maxOpsRead = 1000

// Rewrote finds, among the operations since op of the workspaces (no
// snapshot, no workspace's making, no merge of concurrent operations:
// the commands their workers ran), those after which target's working copy was another
// commit than before (Historian). It reads without snapshotting, so a
// stale working copy (the mark of such a rewrite) is no obstacle.
func (b *JJBackend) Rewrote(ctx context.Context, since, target string, workspaces []string) ([]Op, error) {
	ops, err := b.Repo.OpsSince(ctx, since, maxOpsRead)
	if err != nil {
		return nil, fmt.Errorf("read the operation log: %w", err)
	}
	var out []Op
	for _, o := range ops {
		if !slices.Contains(workspaces, o.WorkspaceName) || o.IsSnapshot || len(o.Parents) != 1 ||
			strings.HasPrefix(o.Description, "snapshot working copy") ||
			strings.HasPrefix(o.Description, "create initial working-copy commit") {
			continue // not a worker's command: its provisioning, a snapshot, a merge
		}
		after, err := b.Repo.WorkingCopyAt(ctx, o.ID, target)
		if err != nil {
			return nil, fmt.Errorf("read workspace %s at operation %s: %w", target, short(o.ID), err)
		}
		before, err := b.Repo.WorkingCopyAt(ctx, o.Parents[0], target)
		if err != nil {
			return nil, fmt.Errorf("read workspace %s at operation %s: %w", target, short(o.Parents[0]), err)
		}
		if after != before {
			out = append(out, Op{ID: o.ID, Description: o.Description, Args: o.Attributes.Args, Workspace: o.WorkspaceName})
		}
	}
	return out, nil
}

// RecordedHead reads target's working-copy commit as the newest operation
// recorded it (Historian).
func (b *JJBackend) RecordedHead(ctx context.Context, target string) (string, error) {
	return b.Repo.WorkingCopyAt(ctx, "@", target)
}
