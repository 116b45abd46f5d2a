package engine

import (
	"context"
	"fmt"
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
func (r *Runner) Collect(ctx context.Context, t *TaskState, res *Result) (Event, error) {
	ev := Event{Kind: EvCollected, Task: t.Num, Wave: t.Wave}
	// One call in the workspace snapshots it and reads its changes: the
	// range from the base to its @, newest (@) first.
	ws := Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: fmt.Sprintf("Task %d: %s", t.Num, t.Title)}
	changes, err := r.Backend.Changes(ctx, ws)
	if err != nil {
		// The workspace is gone or unusable: find the change by the
		// description it was given at provisioning.
		ws.Message = fmt.Sprintf("Task %d:", t.Num)
		cs, ferr := r.Backend.Find(ctx, ws)
		if ferr != nil || len(cs) == 0 {
			ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("no change in workspace %s (%v) and none described \"Task %d:\"", t.Workspace, err, t.Num)
			return ev, nil
		}
		ev.Reason = "recovered by description"
		changes = cs
	}
	if len(changes) == 0 {
		ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("workspace %s holds no change above its base", t.Workspace)
		return ev, nil
	}
	ev.Change, ev.Commit = changes[0].Change, changes[0].Commit
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Divergent {
			ev.Status = StatusDivergent
			ev.Reason = fmt.Sprintf("change %s is divergent: inspect `jj log -r %s`, then `jj abandon` the unwanted commit (by commit ID)", short(c.Change), short(c.Change))
			return ev, nil
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
	return ev, nil
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

// union is the revset of the change or commit ids revs, each named by
// jjx.ID so that no bookmark named like an id takes its place.
func union(revs []string) string {
	if len(revs) == 0 {
		return "none()"
	}
	ids := make([]string, len(revs))
	for i, r := range revs {
		ids[i] = jjx.ID(r)
	}
	return strings.Join(ids, "|")
}
