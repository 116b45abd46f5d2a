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
// the status from the report, falling back to the exit code (res nil:
// the worker was run by someone else, as in step mode).
func (r *Runner) Collect(ctx context.Context, t *TaskState, res *Result) (Event, error) {
	ev := Event{Kind: EvCollected, Task: t.Num, Wave: t.Wave}
	head, err := r.workspaceHead(ctx, t)
	if err != nil {
		// The workspace is gone or unusable: find the change by the
		// description it was given at provisioning.
		cs, lerr := r.Repo.Log(ctx, fmt.Sprintf("latest(descendants(%s) & description(substring:%s))",
			union(t.Base), jjx.Quote(fmt.Sprintf("Task %d:", t.Num))))
		if lerr != nil || len(cs) == 0 {
			ev.Status, ev.Reason = StatusNoChange, fmt.Sprintf("no change in workspace %s (%v) and none described \"Task %d:\"", t.Workspace, err, t.Num)
			return ev, nil
		}
		head = cs[0]
		ev.Reason = "recovered by description"
	}
	ev.Change, ev.Commit = head.ChangeID, head.CommitID
	changes, err := r.Repo.Log(ctx, fmt.Sprintf("(%s)..%s", union(t.Base), head.CommitID))
	if err != nil {
		return ev, err
	}
	for _, c := range changes {
		if c.Divergent {
			ev.Status = StatusDivergent
			ev.Reason = fmt.Sprintf("change %s is divergent: inspect `jj log -r %s`, then `jj abandon` the unwanted commit (by commit ID)", short(c.ChangeID), short(c.ChangeID))
			return ev, nil
		}
		ev.Changes = append(ev.Changes, c.ChangeID)
	}
	files, lines, err := r.changedFiles(ctx, ev.Changes)
	if err != nil {
		return ev, err
	}
	ev.Files, ev.Lines = files, lines

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

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// workspaceHead snapshots task t's workspace and returns its @.
func (r *Runner) workspaceHead(ctx context.Context, t *TaskState) (jjx.Commit, error) {
	if t.Path == "" || !fileExists(t.Path) {
		return jjx.Commit{}, fmt.Errorf("workspace directory %q is missing", t.Path)
	}
	ws := r.Repo.At(t.Path)
	c, err := ws.One(ctx, "@")
	if err != nil && strings.Contains(err.Error(), "stale") {
		if _, uerr := ws.Run(ctx, "workspace", "update-stale"); uerr == nil {
			c, err = ws.One(ctx, "@")
		}
	}
	return c, err
}

// changedFiles returns the union of the files the changes touch and the
// number of lines added and removed.
func (r *Runner) changedFiles(ctx context.Context, changes []string) ([]string, int, error) {
	var files []string
	seen := map[string]bool{}
	lines := 0
	for _, c := range changes {
		fcs, err := r.Repo.Files(ctx, c)
		if err != nil {
			return nil, 0, err
		}
		for _, f := range fcs {
			lines += f.Added + f.Removed
			if !seen[f.Path] {
				seen[f.Path] = true
				files = append(files, f.Path)
			}
		}
	}
	return files, lines, nil
}

func union(revs []string) string {
	if len(revs) == 0 {
		return "none()"
	}
	return strings.Join(revs, "|")
}
