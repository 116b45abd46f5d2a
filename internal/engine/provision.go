package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

// WaveTasks returns the task numbers of wave w (1-based).
func (r *Runner) WaveTasks(w int) ([]int, error) {
	if w < 1 || w > len(r.Doc.Header.Waves) {
		return nil, exitcode.New(exitcode.Usage, "no wave %d: the run has %s", w, plural.Count(len(r.Doc.Header.Waves), "wave", "waves"))
	}
	return r.Doc.Header.Waves[w-1], nil
}

// CheckWaveReady fails unless every earlier wave is fanned in.
func (r *Runner) CheckWaveReady(w int) error {
	st := r.State()
	for i := 1; i < w; i++ {
		if !st.FannedIn[i] {
			return exitcode.New(exitcode.Usage, "wave %d is not fanned in yet: wave %d starts from its result (run `fan-in --wave %d` first)", i, w, i)
		}
	}
	return nil
}

// Provision creates a workspace for every task of wave w that has none:
// wave 1 on @- (each task a sibling of @), later waves on @ (where the
// earlier waves were squashed). Idempotent: a workspace left by a killed
// run is adopted when it is exactly what the ledger would record, and a
// recorded workspace no worker of this run has started in is checked
// again; one that is not on its base (a `jj workspace add` killed between
// its two operations leaves it on root()), unknown to jj or without its
// directory is forgotten, removed and provisioned again.
func (r *Runner) Provision(ctx context.Context, w int) error {
	if err := r.trustRecorded(); err != nil {
		return err
	}
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	if slices.ContainsFunc(nums, func(n int) bool { return st.Tasks[n].Workspace == "" && !st.Tasks[n].Squashed }) {
		if err := r.Budget(ctx, fmt.Sprintf("wave %d", w)); err != nil {
			return err
		}
	}
	base := r.Doc.Header.Parents
	if w > 1 {
		// The orchestrating workspace's @ as it is now: where the earlier
		// waves were squashed (a person may have moved to a new change
		// since the run started).
		base = []string{r.Doc.Header.Target}
		unprovisioned := func(n int) bool { return st.Tasks[n].Workspace == "" && !st.Tasks[n].Squashed }
		if slices.ContainsFunc(nums, unprovisioned) {
			ids, err := r.Backend.Tip(ctx)
			if err != nil {
				return fmt.Errorf("wave %d: read @ to start from: %w", w, err)
			}
			base = ids
		}
	}
	var events []Event
	var todo, recorded []newWorkspace
	for _, n := range nums {
		t := st.Tasks[n]
		message := fmt.Sprintf("Task %d: %s", n, t.Title)
		switch {
		case t.Squashed || t.Released || t.Collected:
			continue
		case t.Workspace != "":
			// A worker of this run started there: Dispatch restarts it on
			// a clean change, or collects what it finished.
			if t.Dispatched > 0 {
				continue
			}
			// Recorded, never used by this run's workers (an agent in
			// step mode may have: its commits on the base are kept).
			recorded = append(recorded, newWorkspace{task: n, ws: Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: message}})
			continue
		}
		todo = append(todo, newWorkspace{task: n, ws: Workspace{Name: r.WorkspaceName(n), Base: base, Message: message}})
	}
	problems, err := r.checkWorkspaces(ctx, recorded)
	if err != nil {
		return err
	}
	for i, rw := range recorded {
		if problems[i] == "" {
			continue
		}
		n, ws := rw.task, rw.ws
		if err := r.remakeWorkspace(ctx, n, ws, problems[i]); err != nil {
			return err
		}
		os.Remove(r.ReportPath(n))
		events = append(events, Event{Task: n, Wave: w, Payload: Provisioned{Workspace: ws.Name, Path: ws.Path, Base: ws.Base, Reason: "provisioned again: not as recorded"}})
	}
	made, err := r.provisionAll(ctx, todo)
	if err != nil {
		return err
	}
	for _, ws := range made {
		// Recorded together below: a workspace made before a crash is
		// checked and adopted by name when provisioning runs again.
		events = append(events, Event{Task: ws.task, Wave: w, Payload: Provisioned{Workspace: ws.ws.Name, Path: ws.ws.Path, Base: base}})
	}
	if len(events) > 0 {
		if err := r.record(events...); err != nil {
			return err
		}
	}
	crashPoint("provisioned")
	return nil
}

// provisionParallel is how many `jj workspace add` run at once when a
// wave is provisioned. jj merges the concurrent operations, losing none
// (TestProvisionConcurrentAdds, on jj 0.46); on two cores
// a wave of 32 workspaces in a repository of 2,000 files is provisioned
// in about half the time it takes one by one (testdata/bench/kaisen-run.sh).
const provisionParallel = 8

// newWorkspace is a task's workspace to make.
type newWorkspace struct {
	task int
	ws   Workspace
}

// provisionAll makes the workspaces of todo and returns them in todo's
// order, each with its Path. The first is made alone, so a failure every
// one would meet (a base that is gone, a full disk) shows once; the rest
// concurrently. A killed run may have made one, wholly or in part,
// without recording it: the backend adopts it only when it is exactly
// right, else makes it again.
func (r *Runner) provisionAll(ctx context.Context, todo []newWorkspace) ([]newWorkspace, error) {
	made := make([]newWorkspace, len(todo))
	errs := make([]error, len(todo))
	one := func(ctx context.Context, i int) {
		ws, err := r.Backend.Provision(ctx, todo[i].ws)
		if err != nil {
			errs[i] = fmt.Errorf("task %d: %w", todo[i].task, err)
			return
		}
		made[i] = newWorkspace{task: todo[i].task, ws: ws}
		crashPoint(fmt.Sprintf("provisioned-task-%d", todo[i].task))
	}
	if len(todo) > 0 {
		one(ctx, 0)
		if errs[0] != nil {
			return nil, errs[0]
		}
	}
	rest := make([]int, 0, len(todo))
	for i := 1; i < len(todo); i++ {
		rest = append(rest, i)
	}
	Parallel(ctx, rest, provisionParallel, one)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, m := range made {
		if m.ws.Remade != "" {
			r.logf("task %d: workspace %s %s: forgotten, removed and provisioned again", m.task, m.ws.Name, m.ws.Remade)
		}
		r.logf("task %d: workspace %s at %s", m.task, m.ws.Name, m.ws.Path)
	}
	return made, nil
}
