package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

// Integrity compares the orchestrating workspace's @ (snapshotted now)
// with the recorded baseline. A difference means a worker wrote outside
// its workspace: the tasks whose files it touched are marked
// workspace-leak, the operation that recorded it is named, and the run
// halts for a person.
func (r *Runner) Integrity(ctx context.Context, w int) error {
	st := r.State()
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	for _, n := range nums {
		if t := st.Tasks[n]; t.Squashed || t.Squashing {
			// The wave's fan-in has begun: @ changes by design now (and a
			// person may have resolved its conflicts there).
			return nil
		}
	}
	leaked, err := r.Backend.ChangedFiles(ctx, st.BaselineCommit)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(leaked) == 0 {
		return nil
	}
	opDesc := r.leakOperation(ctx)
	var culprits []int
	var events []Event
	for _, n := range nums {
		t := st.Tasks[n]
		if t.Squashed || t.Leak {
			continue
		}
		for _, f := range leaked {
			if slices.Contains(t.Files, f) || slices.Contains(t.Task.Files, f) {
				culprits = append(culprits, n)
				events = append(events, Event{Kind: EvLeak, Task: n, Wave: w, Files: leaked,
					Reason: fmt.Sprintf("its edits landed in the orchestrating workspace's @ (%s) instead of %s", strings.Join(leaked, ", "), t.Workspace)})
				break
			}
		}
	}
	who := "a worker of wave " + fmt.Sprint(w)
	if len(culprits) > 0 {
		who = plural.Word(len(culprits), "task ", "tasks ") + plural.Ints(culprits)
	}
	next := fmt.Sprintf("put @ back with `jj restore --from %s` and run `%s`", short(st.BaselineCommit), r.commands().Resume)
	if rb := r.commands().Rebaseline; rb != "" {
		next = fmt.Sprintf("put @ back with `jj restore --from %s` (or keep the edits) and run `%s`", short(st.BaselineCommit), rb)
	}
	reason := fmt.Sprintf("integrity check: @ of workspace %s changed since the baseline (%s): %s wrote outside its workspace; %s. "+
		"Inspect with `jj diff --from %s --to @`; %s",
		r.Doc.Header.Workspace, strings.Join(leaked, ", "), who, opDesc, short(st.BaselineCommit), next)
	events = append(events, Event{Kind: EvIntegrityFailed, Wave: w, Files: leaked, Reason: reason})
	if err := r.record(events...); err != nil {
		return err
	}
	return r.halt(ctx, exitcode.New(exitcode.Halted, "%s", reason))
}

// leakOperation names the operation that recorded the stray edits in
// the orchestrating workspace, when the backend keeps an operation log.
func (r *Runner) leakOperation(ctx context.Context) string {
	u, ok := r.Backend.(Undoer)
	if !ok {
		return "no operation log to name the writer"
	}
	return u.RecordedBy(ctx, r.Doc.Header.Workspace)
}

// Rebaseline accepts @ as it is now as the new baseline (after a person
// dealt with a failed integrity check).
func (r *Runner) Rebaseline(ctx context.Context) error {
	at, err := r.Backend.Head(ctx)
	if err != nil {
		return err
	}
	return r.record(Event{Kind: EvBaseline, Commit: at, Reason: "accepted by a person"})
}
