package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Backend is a task workspace's life on one VCS: provision it at a base,
// hand its path to a worker, refresh and collect what the worker left
// (read from the VCS, never from the worker), integrate that into the
// target, release it. JJBackend works on jj workspaces (GitBackend holds
// the provision, collect and release part on git worktrees). Failures the engine acts on are values (ErrConflict and
// *ConflictError, jjx.ErrStale, jjx.ErrNoWorkspace), never text.
//
// Every method is safe for use from many goroutines.
type Backend interface {
	// VCS names the backend: "jj" or "git".
	VCS() string
	// Provision creates workspace ws.Name at ws.Base, its change
	// described ws.Message, and returns it with its Path. A workspace of
	// that name exactly as asked (a provision killed after its last
	// step) is adopted; one left half-made (a provision killed between
	// its steps) is removed and made again, and the returned
	// workspace's Remade says why.
	Provision(ctx context.Context, ws Workspace) (Workspace, error)
	// Check says how workspace ws differs from what Provision makes of
	// it, for a person ("is not on its base (…)"); "" when it is as
	// asked. Strict wants it exactly on ws.Base; otherwise what a worker
	// committed on top of the base passes.
	Check(ctx context.Context, ws Workspace, strict bool) (string, error)
	// Path is where workspace name lives, whether or not it exists.
	Path(name string) string
	// Refresh brings the VCS's view of the workspace up to date with
	// its files (jj: a snapshot, updating a stale working copy).
	Refresh(ctx context.Context, ws Workspace) error
	// Snapshot records the workspace's files in the VCS and returns the
	// identity of its state (jj: a snapshot, @'s commit ID; git: what
	// the worker left committed on the task branch, as Collect does, and
	// its HEAD).
	Snapshot(ctx context.Context, ws Workspace) (string, error)
	// Reset gives the workspace a fresh change on its base, described
	// ws.Message, dropping what a worker left there (one that died
	// half-way).
	Reset(ctx context.Context, ws Workspace) error
	// Collect reads what the workspace holds above its base: the
	// change, its tree and the files touched with line counts. With git
	// the files the worker left uncommitted are committed first.
	Collect(ctx context.Context, ws Workspace) (Produced, error)
	// ChangesDiff is the git-style diff of changes together (a
	// workspace's Produced.Changes, newest first).
	ChangesDiff(ctx context.Context, changes []string) ([]byte, error)
	// DiffRange is the git-style diff from commit from to commit to.
	DiffRange(ctx context.Context, from, to string) ([]byte, error)
	// Changes reads every change the workspace holds above its base,
	// newest first, as the VCS records it (jj: the workspace's @
	// included, empty or not; git: what the worker left committed first,
	// as Collect does). The workspace is refreshed first.
	Changes(ctx context.Context, ws Workspace) ([]Change, error)
	// Find reads the changes a workspace whose directory is gone left
	// above ws.Base, newest first: jj finds the newest change described
	// with ws.Message (a part of its description), git reads the task
	// branch. None found is no error.
	Find(ctx context.Context, ws Workspace) ([]Change, error)
	// Integrate brings p into the target (jj: squash into the
	// orchestrating workspace's @; git: rebase the task branch onto the
	// target branch and fast-forward it, keeping history linear). A
	// conflict the VCS reports is a *ConflictError naming the files.
	Integrate(ctx context.Context, p Produced) error
	// Integrated reports which of changes still exist (the keys) and
	// whether each is already in the target's history (with git: it, or
	// the copy a rebase made of it).
	Integrated(ctx context.Context, changes []string) (map[string]bool, error)
	// Conflicts lists the target's conflicted files: the authoritative
	// check after integrating (Integrate's own report may rest on what
	// the VCS said while it integrated).
	Conflicts(ctx context.Context) ([]string, error)
	// TargetDir is the target's working copy.
	TargetDir() string
	// Head is the identity of the target's current commit (jj: @'s
	// commit ID, its working copy snapshotted; git: the target's HEAD).
	Head(ctx context.Context) (string, error)
	// Tip is the base a new workspace starts from to hold all that is
	// integrated (jj: @'s change ID; git: the target's HEAD).
	Tip(ctx context.Context) ([]string, error)
	// ChangedFiles lists the files of the target's working copy that
	// differ from commit from, what is not committed included.
	ChangedFiles(ctx context.Context, from string) ([]string, error)
	// Diff is the git-style diff from commit from to the target's
	// working copy.
	Diff(ctx context.Context, from string) ([]byte, error)
	// ReleaseAll releases the workspaces, in one VCS call where it can.
	ReleaseAll(ctx context.Context, wss []Workspace) error
	// Release removes the workspace and, with git, its task branch. It
	// is idempotent: releasing what is gone succeeds.
	Release(ctx context.Context, ws Workspace) error
	// Workspaces lists the names of the task workspaces that exist.
	Workspaces(ctx context.Context) ([]string, error)
}

// Undoer is a Backend that keeps an operation log (jj): a run is undone
// by restoring the operation it started from, and edits found in a
// working copy are traced to the operation that recorded them.
type Undoer interface {
	// RestoreOp puts the whole repository back as it was at operation op.
	RestoreOp(ctx context.Context, op string) error
	// RecordedBy names, for a person, the operation of workspace that
	// recorded its working copy's edits.
	RecordedBy(ctx context.Context, workspace string) string
}

// Bystander is the optional part of a backend that finds what others did
// in the repository during a run (jj): work that restoring the run's start
// operation would hide.
type Bystander interface {
	// WorkSince lists, for a person, the revisions of changes made since
	// operation op that are none of the run's: not the changes of its
	// tasks, not in the workspaces named.
	WorkSince(ctx context.Context, op string, workspaces, changes []string) ([]string, error)
}

// Historian is the optional part of a backend whose operation log tells
// which workspace's operation changed the target (jj): a worker that
// rewrote history outside its workspace (`jj abandon @-` abandons the
// revision its workspace stands on, the user's) is found by it.
type Historian interface {
	// Rewrote lists, newest first, the operations after operation since
	// that one of workspaces made and that changed the working-copy
	// commit of workspace target (it, or a revision below it, was
	// rewritten or abandoned).
	Rewrote(ctx context.Context, since, target string, workspaces []string) ([]Op, error)
	// RecordedHead is the commit of workspace target's working copy as
	// the VCS last recorded it, its files unread (so a stale working
	// copy is no obstacle).
	RecordedHead(ctx context.Context, target string) (string, error)
}

// Op is an operation of the VCS's operation log, for a person.
type Op struct {
	ID          string
	Description string
	Args        string // the command that made it, as the VCS recorded it
	Workspace   string
}

func (o Op) String() string {
	s := fmt.Sprintf("operation %s (%s", short(o.ID), o.Description)
	if o.Args != "" {
		s += "; `" + o.Args + "`"
	}
	return s + ")"
}

// Abandoner is the optional part of a backend whose released workspace
// can leave changes visible in the repository (jj: a failed task's empty
// change stays in `jj log`; git deletes the task branch on release).
type Abandoner interface {
	// Abandon drops the commits from the repository's visible history.
	Abandon(ctx context.Context, commits ...string) error
}

// BatchIntegrator is the optional part of a backend that integrates
// several workspaces' results in one VCS operation (jj: one squash of
// every change into @). The results must not touch a file in common, nor
// one the target changed since their base: the engine checks that first,
// and Conflicts after, as it does after Integrate. On error nothing was
// integrated (jj: the squash is one operation).
type BatchIntegrator interface {
	// IntegrateAll returns the VCS's ID of its operation (jj: the
	// squash's operation), which the engine records in the ledger; ""
	// when it cannot tell which operation is its own.
	IntegrateAll(ctx context.Context, ps []Produced) (op string, err error)
	// UndoIntegrateAll takes back the IntegrateAll whose operation op
	// names when nothing else changed the repository since; false when
	// it cannot (op "" included).
	UndoIntegrateAll(ctx context.Context, op string) (bool, error)
}

// BatchChecker is the optional part of a backend that checks many
// workspaces with fewer VCS calls than one Check each (jj: one
// `workspace list` and one `jj log` over their working copies).
type BatchChecker interface {
	// CheckAll answers Check for each of wss, in order.
	CheckAll(ctx context.Context, wss []Workspace, strict bool) ([]string, error)
}

// Workspace is one task's workspace.
type Workspace struct {
	Name    string
	Path    string
	Base    []string // revisions it starts from (jj change IDs, a git SHA)
	Message string   // the description of its change ("Task 3: …")
	// Since, when set, is the operation the run started from: a change
	// in the workspace's range that was there then, as it was then, is
	// none of its worker's (jj).
	Since string
	// Remade, set by Provision, says why a half-made workspace of this
	// name was removed and made again ("" when none was).
	Remade string
}

// Produced is what a workspace holds above its base.
type Produced struct {
	Workspace string
	Change    string   // jj change ID, or the git commit
	Changes   []string // every change above the base, newest first
	Commit    string   // the newest commit
	Tree      string   // the identity of its tree (git tree SHA; jj commit ID)
	Files     []FileLines
}

// Empty reports that the worker left nothing.
func (p Produced) Empty() bool { return p.Commit == "" }

// Change is one change of a workspace, as the VCS records it.
type Change struct {
	Change    string // jj change ID, or the git commit
	Commit    string
	Divergent bool // jj: the change ID names more than one visible commit
	Empty     bool // it changes no file
	Files     []FileLines
}

// FileLines is a file touched, with its line counts.
type FileLines struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// ErrConflict reports an integration that conflicts; errors.As finds the
// *ConflictError naming the files.
var ErrConflict = errors.New("integration conflicts")

// ConflictError names the conflicted files of an integration.
type ConflictError struct {
	Workspace string
	Files     []string
	Err       error // the VCS layer's error, when it reported one
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("integrate %s: conflicts in %s", e.Workspace, strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

func (e *ConflictError) Unwrap() error { return e.Err }
