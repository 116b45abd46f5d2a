package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/jjx"
)

// Collect reads what task t's worker left: the change from the
// workspace's own revset (never from the worker's word), recovered by
// its description when the workspace is gone; the files it touched; and
// the status: the report's, when the worker exited 0 (the exit code wins)
// and the report is a regular file naming one; else crashed (res nil:
// the worker was run by someone else, as in step mode, and the report
// alone speaks).
func (r *Runner) Collect(ctx context.Context, t *TaskState, res *Result) (Collected, error) {
	var ev Collected
	if !r.readChanges(ctx, t, &ev) {
		if res != nil {
			ev.ExitCode = res.ExitCode
		}
		return ev, nil
	}
	switch {
	case res == nil:
		// Nobody saw the worker end (step mode, or a run killed while
		// it ran): its report alone speaks, and no status is not done.
		status, err := ReadReport(r.ReportPath(t.Num))
		if err != nil {
			status = StatusCrashed
			ev.Reason = joinReason(ev.Reason, err.Error())
		}
		ev.Status = status
	case res.TimedOut:
		ev.Status, ev.Reason = StatusCrashed, joinReason(ev.Reason, fmt.Sprintf("worker timed out after %s; log %s", r.timeout(), r.LogPath(t.Num)))
	default:
		status, why := Outcome(*res, r.ReportPath(t.Num), r.LogPath(t.Num))
		ev.Status, ev.Reason = status, joinReason(ev.Reason, why)
	}
	if res != nil {
		ev.ExitCode = res.ExitCode
	}
	if r.Screen != nil && (ev.Status == StatusDone || ev.Status == StatusConcerns) {
		if err := r.screen(ctx, t, &ev); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// Screening is what a front end's Runner.Screen found in what a worker
// that reported done left in its workspace.
type Screening struct {
	// Note is recorded with the collection and shown (jj-openspec: the
	// ticks it reverted).
	Note string
	// Fail, when set, fails the task (StatusRejected) with this reason.
	Fail string
	// Edited: Screen edited the workspace; its changes are read again.
	Edited bool
}

// screen runs r.Screen on task t's collection ev and applies its verdict.
func (r *Runner) screen(ctx context.Context, t *TaskState, ev *Collected) error {
	sc, err := r.Screen(ctx, t, ev.Files)
	if err != nil {
		return fmt.Errorf("screen task %d's workspace %s: %w", t.Num, t.Workspace, err)
	}
	if sc.Note != "" {
		ev.Reason = joinReason(ev.Reason, sc.Note)
		r.logf("task %d: %s", t.Num, sc.Note)
	}
	if sc.Fail != "" {
		ev.Status, ev.Reason = StatusRejected, joinReason(ev.Reason, sc.Fail)
		return nil
	}
	if sc.Edited {
		var again Collected
		if !r.readChanges(ctx, t, &again) {
			ev.Status, ev.Reason = again.Status, joinReason(ev.Reason, again.Reason)
			return nil
		}
		ev.Change, ev.Commit, ev.Changes, ev.Files, ev.Lines = again.Change, again.Commit, again.Changes, again.Files, again.Lines
	}
	return nil
}

// readChanges reads the changes task t's workspace holds above its base
// into ev (change, commit, changes, files, lines), from the workspace's
// own revset, or by the description it was given when the workspace is
// gone. It returns false, ev's status and reason saying why, when there
// is nothing to collect (no change, or a divergent one).
func (r *Runner) readChanges(ctx context.Context, t *TaskState, ev *Collected) bool {
	// One call in the workspace snapshots it and reads its changes: the
	// range from the base to its @, newest (@) first.
	ws := Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: fmt.Sprintf("Task %d: %s", t.Num, t.Title), Since: r.Doc.Header.StartOp}
	changes, err := r.Backend.Changes(ctx, ws)
	var off *OffBaseError
	if errors.As(err, &off) {
		// Rejected, not broken: the workspace still answers, and the
		// integrity check names the operation when the move rewrote
		// history elsewhere too.
		ev.Status, ev.Reason = StatusRejected, off.Error()
		return false
	}
	if broken := r.brokenWorkspace(ctx, t, err); broken != "" {
		ev.Status, ev.Reason = StatusBroken, broken
		return false
	}
	if err != nil {
		// The workspace is gone or unusable: find the change by the
		// description it was given at provisioning.
		ws.Message = fmt.Sprintf("Task %d:", t.Num)
		cs, ferr := r.Backend.Find(ctx, ws)
		if ferr != nil || len(cs) == 0 {
			ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("no change in workspace %s (%v) and none described \"Task %d:\"", t.Workspace, err, t.Num)
			return false
		}
		ev.Reason = "recovered by description"
		changes = cs
		if !slices.ContainsFunc(cs, func(c Change) bool { return len(c.Files) > 0 }) {
			// Not "done, 0 files": what the worker wrote went with the
			// workspace, never snapshotted.
			ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("workspace %s is gone (%v) and its change, found by its description, holds no file: whatever its worker wrote there was never recorded", t.Workspace, err)
			return false
		}
	}
	if len(changes) == 0 {
		ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("workspace %s holds no change above its base", t.Workspace)
		return false
	}
	ev.Change, ev.Commit = changes[0].Change, changes[0].Commit
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Divergent {
			ev.Status = StatusDivergent
			ev.Reason = fmt.Sprintf("change %s is divergent: inspect `jj log -r %s`, then `jj abandon` the unwanted commit (by commit ID)", short(c.Change), short(c.Change))
			return false
		}
		ev.Changes = append(ev.Changes, c.Change)
		for _, f := range c.Files {
			ev.Lines += f.Added + f.Removed
			if !seen[f.Path] {
				seen[f.Path] = true
				ev.Files = append(ev.Files, f.Path)
			}
		}
	}
	return true
}

// brokenWorkspace says, for a person, how task t's workspace is broken
// given err, what reading its changes returned: files jj refused to
// snapshot (on disk, in no commit: lost with the workspace, which is
// therefore kept), or a directory that is no workspace any more (its .jj
// deleted); "" when it is neither. A workspace whose directory is gone
// is not broken: its change is recovered by its description.
func (r *Runner) brokenWorkspace(ctx context.Context, t *TaskState, err error) string {
	if err == nil || ctx.Err() != nil {
		return ""
	}
	var refused *jjx.RefusedError
	if errors.As(err, &refused) {
		names := make([]string, len(refused.Files))
		for i, f := range refused.Files {
			names[i] = f.String()
		}
		return fmt.Sprintf("jj refused to snapshot %s in workspace %s at %s: the file is in no commit, so the workspace is kept with it: "+
			"remove or ignore (.gitignore) the file there, or raise the limit (`jj config set --repo %s BYTES`), and run again",
			strings.Join(names, ", "), t.Workspace, t.Path, jjx.MaxNewFileSizeSetting)
	}
	if r.Backend.VCS() == "jj" && t.Path != "" && fileExists(t.Path) && !fileExists(filepath.Join(t.Path, ".jj")) {
		return fmt.Sprintf("broken workspace %s at %s: it is no jj workspace any more (its .jj is gone: the worker deleted it); what it left there is in no commit. "+
			"Copy what you need out of it, then `jj workspace forget %s`", t.Workspace, t.Path, t.Workspace)
	}
	return ""
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// workspaceHead snapshots task t's workspace and returns the identity of
// its state (jj: @'s commit ID).
func (r *Runner) workspaceHead(ctx context.Context, t *TaskState) (string, error) {
	return r.Backend.Snapshot(ctx, Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: fmt.Sprintf("Task %d: %s", t.Num, t.Title)})
}
