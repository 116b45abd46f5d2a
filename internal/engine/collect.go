package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/jjx"
)

// Collect reads what task t's worker left: the change from the
// workspace's own revset (never from the worker's word), recovered by
// its description when the workspace is gone; the files it touched; and
// the status from the report, falling back to the exit code (res nil:
// the worker was run by someone else, as in step mode).
func (r *Runner) Collect(ctx context.Context, t *TaskState, res *Result) (Event, error) {
	ev := Event{Kind: EvCollected, Task: t.Num, Wave: t.Wave}
	// One call in the workspace snapshots it and reads its changes: the
	// range from the base to its @, newest (@) first.
	ws := Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: fmt.Sprintf("Task %d: %s", t.Num, t.Title)}
	changes, err := r.Backend.Changes(ctx, ws)
	if broken := r.brokenWorkspace(ctx, t, err); broken != "" {
		ev.Status, ev.Reason = StatusBroken, broken
		if res != nil {
			ev.ExitCode = res.ExitCode
		}
		return ev, nil
	}
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

	status, ok := ReportStatus(r.ReportPath(t.Num))
	switch {
	case ok:
		ev.Status = status
	case res == nil:
		ev.Status, ev.Reason = StatusCrashed, joinReason(ev.Reason, "no status in the report "+r.ReportPath(t.Num))
	case res.TimedOut:
		ev.Status, ev.Reason = StatusCrashed, joinReason(ev.Reason, fmt.Sprintf("worker timed out after %s; log %s", r.timeout(), r.LogPath(t.Num)))
	case res.ExitCode == 0 && res.Err == nil:
		ev.Status, ev.Reason = StatusDone, joinReason(ev.Reason, "no status in the report; the worker exited 0")
	default:
		ev.Status, ev.Reason = StatusCrashed, joinReason(ev.Reason, fmt.Sprintf("worker exited %d without a status in its report; log %s", res.ExitCode, r.LogPath(t.Num)))
	}
	if res != nil {
		ev.ExitCode = res.ExitCode
	}
	return ev, nil
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
