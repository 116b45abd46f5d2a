package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/plural"
)

// checkSiblings checks every workspace of wave w against what its own
// worker was allowed to touch (Integrity's part for the task
// workspaces; the orchestrating one is checked before). A task's change
// that holds a file another task of the wave declared (the tasks of a
// wave never share one), or whose workspace changed after its worker
// ended while others still ran, holds work that is not its worker's: the
// task fails (StatusBroken) naming the files and the likely writer, and
// its workspace is kept. The other tasks go on.
func (r *Runner) checkSiblings(ctx context.Context, w int, nums []int) error {
	st := r.State()
	// The worker the engine ran that ended last (each was collected as
	// it ended; in step mode someone else ran them, and a collect's time
	// says nothing of the worker's end): no sibling ran after it.
	last := 0
	for _, n := range nums {
		if t := st.Tasks[n]; t.Collected && t.Dispatched > 0 && (last == 0 || t.CollectedAt.After(st.Tasks[last].CollectedAt)) {
			last = n
		}
	}
	var events []Event
	var reasons []string
	broken := func(t *TaskState, reason string) {
		events, reasons = append(events, brokenEvent(w, t, reason)), append(reasons, reason)
	}
	for _, n := range nums {
		t := st.Tasks[n]
		if !t.Collected || t.Failed() || t.Squashing || t.Squashed {
			continue
		}
		if reason := declaredBySibling(st, nums, t); reason != "" {
			broken(t, reason)
			continue
		}
		// Only a workspace whose worker ended before (or with) another's
		// can have been written by a sibling since; one already tested
		// may hold what its tests wrote.
		if t.Dispatched == 0 || t.Commit == "" || t.Tests != "" || t.Reviewed || t.Num == last || !fileExists(t.Path) {
			continue
		}
		reason, err := r.writtenSince(ctx, st, nums, t)
		if err != nil {
			return fmt.Errorf("integrity check: task %d's workspace: %w", t.Num, err)
		}
		if reason != "" {
			broken(t, reason)
		}
	}
	if len(events) == 0 {
		return nil
	}
	for i, ev := range events {
		r.logf("task %d: integrity check: %s", ev.Task, reasons[i])
	}
	return r.record(events...)
}

// brokenEvent re-records task t's collection as broken for reason.
func brokenEvent(w int, t *TaskState, reason string) Event {
	return Event{Task: t.Num, Wave: w, Payload: Collected{Status: StatusBroken, Reason: reason,
		Change: t.Change, Changes: t.Changes, Commit: t.Commit, Files: t.Files, Lines: t.Lines}}
}

// declaredBySibling names the files of t's change that another task of
// the wave declared and t did not; "" when there is none.
func declaredBySibling(st *State, nums []int, t *TaskState) string {
	var parts []string
	for _, n := range nums {
		o := st.Tasks[n]
		if n == t.Num {
			continue
		}
		var theirs []string
		for _, f := range t.Files {
			if slices.Contains(o.Task.Files, f) && !slices.Contains(t.Task.Files, f) {
				theirs = append(theirs, f)
			}
		}
		if len(theirs) > 0 {
			parts = append(parts, fmt.Sprintf("%s, which task %d declared", strings.Join(theirs, ", "), n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("workspace %s holds %s (the tasks of a wave never share a file): another task's worker wrote into this workspace, or this one wrote another task's files; the workspace is kept",
		t.Workspace, strings.Join(parts, "; "))
}

// writtenSince snapshots t's workspace and, when its change holds
// another file or other line counts than when its worker ended, names
// them and the workers that still ran then. It compares what the change
// does (files and lines against its parents), so a change only rebased
// (its base rewritten) is no write.
func (r *Runner) writtenSince(ctx context.Context, st *State, nums []int, t *TaskState) (string, error) {
	changes, err := r.Backend.Changes(ctx, Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base})
	if err != nil {
		if reason := r.brokenWorkspace(ctx, t, err); reason != "" {
			return reason, nil
		}
		return "", err
	}
	if len(changes) > 0 && changes[0].Commit == t.Commit {
		return "", nil
	}
	files, lines := filesAndLines(changes)
	var added []string
	for _, f := range files {
		if !slices.Contains(t.Files, f) {
			added = append(added, f)
		}
	}
	what := strings.Join(added, ", ")
	switch {
	case len(added) == 0 && lines == t.Lines:
		return "", nil // rebased, not edited
	case len(added) == 0:
		what = fmt.Sprintf("its files: %s when its worker ended, %s now", plural.Count(t.Lines, "line", "lines"), plural.Count(lines, "line", "lines"))
	}
	var running []int
	for _, n := range nums {
		if o := st.Tasks[n]; n != t.Num && o.Dispatched > 0 && !o.CollectedAt.Before(t.CollectedAt) {
			running = append(running, n)
		}
	}
	who := "a worker that still ran"
	if len(running) > 0 {
		who = "the worker of " + plural.Word(len(running), "task ", "tasks ") + plural.Ints(running) + ", which still ran then"
	}
	return fmt.Sprintf("workspace %s changed after its worker ended (%s): written by %s, not by its own worker; the workspace is kept",
		t.Workspace, what, who), nil
}

// filesAndLines lists the files changes touch, in order, and the lines
// they add and remove, as Collect counts them.
func filesAndLines(changes []Change) ([]string, int) {
	var files []string
	lines := 0
	for _, c := range changes {
		for _, f := range c.Files {
			lines += f.Added + f.Removed
			if !slices.Contains(files, f.Path) {
				files = append(files, f.Path)
			}
		}
	}
	return files, lines
}
