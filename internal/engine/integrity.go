package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/jjx"
)

// Integrity checks what wave w's workers did outside their own changes.
// An operation of a task workspace that rewrote the orchestrating
// workspace's @ (or a revision below it) fails that task, naming the
// operation, and halts the run. Then it compares @ (snapshotted now)
// with the recorded baseline: a difference means a worker wrote outside
// its workspace: the tasks whose files it touched are marked
// workspace-leak, the operation that recorded it is named, and the run
// halts for a person. Last, every task workspace is held to what its own
// worker may touch (checkSiblings).
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
	// @ as recorded at the baseline: nothing wrote into it, and nothing
	// rewrote it or a revision below it (either makes another commit).
	at, err := r.Backend.Head(ctx)
	stale := errors.Is(err, jjx.ErrStale)
	if err != nil && !stale {
		return fmt.Errorf("integrity check: read @: %w", err)
	}
	if !stale && at == st.BaselineCommit {
		return r.checkSiblings(ctx, w, nums)
	}
	if h, ok := r.Backend.(Historian); ok {
		var wss []string
		for _, n := range nums {
			if t := st.Tasks[n]; t.Workspace != "" && t.Status != StatusBroken {
				wss = append(wss, t.Workspace)
			}
		}
		ops, err := h.Rewrote(ctx, r.Doc.Header.StartOp, r.Doc.Header.Workspace, wss)
		if err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		if len(ops) > 0 {
			return r.rewritten(ctx, w, nums, ops)
		}
	}
	if stale {
		// Another workspace's operation rewrote @ (or a revision below
		// it), none of this wave's workers' that is still in the log.
		return r.rewritten(ctx, w, nums, nil)
	}
	leaked, err := r.Backend.ChangedFiles(ctx, st.BaselineCommit)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(leaked) == 0 {
		return r.checkSiblings(ctx, w, nums)
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
				reason := fmt.Sprintf("its files changed in the orchestrating workspace's @ (%s), not in %s: its worker wrote outside its workspace, or a person edited them there", strings.Join(leaked, ", "), t.Workspace)
				events = append(events, Event{Task: n, Wave: w, Payload: Leaked{Files: leaked, Reason: reason}})
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
	// Nothing tells a worker's write from a person's edit (either is
	// snapshotted by the next jj command there): both are named.
	reason := fmt.Sprintf("integrity check: @ of workspace %s changed since the baseline (%s): %s wrote outside its workspace, or a person edited there during the run; %s. "+
		"Inspect with `jj diff --from %s --to @`; %s",
		r.Doc.Header.Workspace, strings.Join(leaked, ", "), who, opDesc, short(st.BaselineCommit), next)
	events = append(events, Event{Wave: w, Payload: IntegrityFailed{Files: leaked, Reason: reason}})
	if err := r.record(events...); err != nil {
		return err
	}
	return r.halt(ctx, exitcode.New(exitcode.Halted, "%s", reason))
}

// rewritten fails the tasks of wave w whose workers' operations ops
// rewrote @ of the orchestrating workspace (or a revision below it) and
// halts the run for a person: nothing of the wave is merged onto a
// history a worker changed. No ops: @ was found stale, the operation
// unknown.
func (r *Runner) rewritten(ctx context.Context, w int, nums []int, ops []Op) error {
	st := r.State()
	byWorkspace := map[string]int{}
	for _, n := range nums {
		if t := st.Tasks[n]; t.Workspace != "" {
			byWorkspace[t.Workspace] = n
		}
	}
	var halted Halted
	if h, ok := r.Backend.(Historian); ok {
		// @ as the rewrite left it: what the working copy shows once
		// updated, which abort then knows holds no edit of a person's.
		halted.Commit, _ = h.RecordedHead(ctx, r.Doc.Header.Workspace)
	}
	var events []Event
	var culprits []int
	var named []string
	for _, o := range ops {
		n, ok := byWorkspace[o.Workspace]
		if !ok {
			continue
		}
		named = append(named, fmt.Sprintf("task %d's worker: %s in workspace %s", n, o, o.Workspace))
		if slices.Contains(culprits, n) {
			continue
		}
		culprits = append(culprits, n)
		events = append(events, brokenEvent(w, st.Tasks[n], "its worker rewrote history outside its workspace: "+o.String()))
	}
	who := "its working copy is stale; `jj op log` shows the operation"
	if len(named) > 0 {
		who = "history was rewritten outside the task workspaces by " + strings.Join(named, "; ")
	}
	// Reverting the operation is no way back: the workspaces updated
	// since would hold their changes twice (divergent). Abort restores
	// the operation the run started from.
	reason := fmt.Sprintf("integrity check: @ of workspace %s was rewritten by another workspace's operation: %s. "+
		"Nothing of wave %d is merged; undo the run with `%s` (it restores the operation the run started from)", r.Doc.Header.Workspace, who, w, r.commands().Abort)
	halted.Reason = reason
	events = append(events, Event{Wave: w, Payload: IntegrityFailed{Reason: reason}}, Event{Payload: halted})
	if err := r.record(events...); err != nil {
		return err
	}
	return exitcode.New(exitcode.Halted, "%s", reason)
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
	return r.record(Event{Payload: Baselined{Commit: at, Reason: "accepted by a person"}})
}
