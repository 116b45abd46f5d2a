package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

// Drive runs every remaining phase of every wave, then the final gate,
// sweep and completion. It picks up wherever the ledger says the run is,
// whether it was left by a killed driver or by step-mode commands.
func (r *Runner) Drive(ctx context.Context) error {
	st := r.State()
	if st.Aborted {
		return exitcode.New(exitcode.Usage, "run %s was aborted: start a new one", r.Doc.Header.RunID)
	}
	if st.Complete {
		return nil
	}
	for w := 1; w <= len(r.Doc.Header.Waves); w++ {
		if r.State().FannedIn[w] {
			continue
		}
		ns := r.Doc.Header.Waves[w-1]
		r.logf("wave %d: %s %s", w, plural.Word(len(ns), "task", "tasks"), plural.Ints(ns))
		if err := r.Provision(ctx, w); err != nil {
			if ctx.Err() != nil {
				return exitcode.Wrap(exitcode.Interrupted, err)
			}
			if exitcode.Of(err) == exitcode.Halted {
				return err // the budget: halted already, saying how to go on
			}
			// Never leave the run looking live: say why it stopped.
			cmds := r.commands()
			return r.halt(ctx, fmt.Errorf("wave %d: provision the task workspaces: %w (fix the cause, then `%s`; or `%s`)", w, err, cmds.Resume, cmds.Abort))
		}
		if err := r.Dispatch(ctx, w); err != nil {
			return err
		}
		if err := r.Integrity(ctx, w); err != nil {
			return err
		}
		if err := r.Review(ctx, w); err != nil {
			return err
		}
		if err := r.FanIn(ctx, w); err != nil {
			return err
		}
		crashPoint(fmt.Sprintf("fanned-in-%d", w))
	}
	if err := r.Gate(ctx); err != nil {
		return err
	}
	return r.Complete(ctx)
}

// Gate runs the full test command once in @ (the only check of the tasks
// together). With no test command the gate records that no automated
// check ran; it never says "passed".
func (r *Runner) Gate(ctx context.Context) error {
	st := r.State()
	for w := 1; w <= len(r.Doc.Header.Waves); w++ {
		if !st.FannedIn[w] {
			return exitcode.New(exitcode.Usage, "wave %d is not fanned in: the gate checks the combined result of every wave", w)
		}
	}
	cmd := r.testCmd()
	if cmd == "" {
		return r.record(Event{Payload: Gated{Status: GateNone, Note: "no test command configured: no automated check ran on the combined result"}})
	}
	log := r.art("gate.log")
	root := r.Backend.TargetDir()
	r.logf("gate: running %q in %s", cmd, root)
	at, err := r.Backend.Head(ctx)
	if err != nil {
		return fmt.Errorf("gate: read @: %w", err)
	}
	res, err := r.runGate(ctx, 0, 0, RoleGate, r.testJob(cmd, root, "all", log), at)
	if err != nil {
		return err
	}
	crashPoint("gate-ran")
	if ctx.Err() != nil {
		return exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	if CannotStart(res.ExitCode) {
		return r.cannotStartError(ctx, cmd, root, log, res.ExitCode)
	}
	if res.ExitCode != 0 || res.Err != nil {
		reason := fmt.Sprintf("full test command %q failed in @ (exit %d); log %s. The merged work is in @: fix it there, then %s", cmd, res.ExitCode, log, r.gateHint())
		if err := r.record(Event{Payload: Gated{Status: GateFailed, Note: reason}}); err != nil {
			return err
		}
		return exitcode.New(exitcode.GateFailed, "%s", reason)
	}
	return r.record(Event{Payload: Gated{Status: GatePassed, Note: cmd}})
}

// Complete sweeps the workspaces and records the run as complete; the
// gate must not be red.
func (r *Runner) Complete(ctx context.Context) error {
	st := r.State()
	if st.Gate == "" || st.Gate == GateFailed {
		return exitcode.New(exitcode.GateFailed, "the final gate has not passed: run %s", r.gateHint())
	}
	if err := r.Sweep(ctx, false); err != nil {
		return err
	}
	at, err := r.Backend.Head(ctx)
	if err != nil {
		return fmt.Errorf("complete the run: read @: %w", err)
	}
	if err := r.record(Event{Payload: Completed{Commit: at}}); err != nil {
		return err
	}
	// Complete, yet not a success when a task was left out of @.
	return r.Report().notMergedError(r.commands())
}

// Sweep releases the workspaces of tasks that no longer need them
// (squashed, leaked into @). Failed tasks' workspaces are preserved
// unless all is set, which releases those that earlier runs of the
// ledger kept too.
func (r *Runner) Sweep(ctx context.Context, all bool) error {
	st := r.State()
	var errs []error
	for _, t := range r.Doc.Header.Tasks {
		ts := st.Tasks[t.Num]
		if ts.Workspace == "" || ts.Released {
			continue
		}
		if ts.Squashed || ts.Leak || all {
			var empty []string
			ab, canAbandon := r.Backend.(Abandoner)
			if canAbandon && !ts.Squashed && !ts.Leak {
				empty = r.emptyChanges(ctx, ts)
			}
			if err := r.release(ctx, ts); err != nil {
				errs = append(errs, err)
				continue
			}
			// Released, a failed task's empty change would stay in `jj
			// log` for nobody; one that holds work stays for a person.
			if len(empty) > 0 {
				if err := ab.Abandon(ctx, empty...); err != nil {
					errs = append(errs, fmt.Errorf("task %d: abandon its empty change: %w", t.Num, err))
					continue
				}
				r.logf("task %d: abandoned %s (empty)", t.Num, plural.Word(len(empty), "its change", "its changes"))
			}
		}
	}
	if all {
		if err := r.sweepEarlier(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	r.removeWorkspacesDir()
	return errors.Join(errs...)
}

// emptyChanges lists the commits of task t's workspace, from its base to
// its @, that hold no change; nil when the workspace cannot be read.
func (r *Runner) emptyChanges(ctx context.Context, t *TaskState) []string {
	cs, err := r.Backend.Changes(ctx, Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base})
	if err != nil {
		return nil
	}
	var ids []string
	for _, c := range cs {
		if c.Empty {
			ids = append(ids, c.Commit)
		}
	}
	return ids
}

// removeWorkspacesDir removes the repository's workspaces folder when no
// workspace is left in it (os.Remove removes only an empty directory).
func (r *Runner) removeWorkspacesDir() {
	if r.Backend != nil {
		os.Remove(filepath.Dir(r.Backend.Path("task")))
	}
}

// Abort restores the repository to the run's start operation (undoing
// every workspace, squash and abandon of the run at once), removes the
// run's workspace directories and records the run as aborted. Artifacts
// are kept. Unless yes is set, it refuses (exit 5, listing what would be
// lost) a run that is complete, or whose @ holds edits made since the
// run last recorded it.
func (r *Runner) Abort(ctx context.Context, yes bool) error {
	st := r.State()
	if st.Aborted {
		return exitcode.New(exitcode.Usage, "run %s is already aborted (restored to %s)", r.Doc.Header.RunID, short(st.AbortedOp))
	}
	if !yes {
		if err := r.abortLoss(ctx, st); err != nil {
			return err
		}
	}
	u, ok := r.Backend.(Undoer)
	if !ok {
		return exitcode.New(exitcode.Usage, "abort: the %s backend keeps no operation log to restore run %s from", r.Backend.VCS(), r.Doc.Header.RunID)
	}
	live := r.cancelRemote(ctx, st)
	if err := u.RestoreOp(ctx, r.Doc.Header.StartOp); err != nil {
		return fmt.Errorf("restore operation %s: %w", short(r.Doc.Header.StartOp), err)
	}
	// Only folders inside the pool's: a ledger naming any other folder
	// (damaged, or edited) is not obeyed; the folder is named, kept.
	dir := filepath.Dir(r.Backend.Path("task"))
	var kept []error
	for _, n := range slices.Sorted(maps.Keys(st.Tasks)) {
		if p := st.Tasks[n].Path; p != "" {
			if err := confine.RemoveUnder(dir, p); err != nil {
				kept = append(kept, fmt.Errorf("task %d's workspace: %w", n, err))
			}
		}
	}
	r.removeWorkspacesDir()
	if err := r.record(Event{Payload: Aborted{Op: r.Doc.Header.StartOp}}); err != nil {
		return err
	}
	return errors.Join(append([]error{live}, kept...)...)
}

// cancelRemote cancels, for abort, the runs an executor still works on
// for the run's tasks and deletes their base branches (a result a worker
// pushed and nothing took is kept on the remote, and named); each is
// then settled.
// What it could not cancel is the error, naming the runs: abort still
// undoes the run here, and says what is left on GitHub.
func (r *Runner) cancelRemote(ctx context.Context, st *State) error {
	var left []string
	for _, n := range slices.Sorted(maps.Keys(st.Tasks)) {
		t := st.Tasks[n]
		rr := t.Remote
		if rr == nil || rr.Settled {
			continue
		}
		where := cmp.Or(rr.URL, "the run of job "+rr.Job)
		if r.Executor == nil {
			left = append(left, where)
			continue
		}
		if !rr.Done {
			if err := r.Executor.Cancel(ctx, *rr); err != nil {
				left = append(left, fmt.Sprintf("%s (%v)", where, err))
				continue
			}
		}
		gitDir := ""
		if b, ok := r.Backend.(*JJBackend); ok {
			gitDir, _ = b.Repo.GitRoot(ctx)
		}
		kept, err := r.Executor.Abandon(ctx, gitDir, *rr)
		if err != nil {
			r.logf("task %d: %v (delete its specstack/ base branch by hand)", n, err)
		}
		ev := func(p Payload) error {
			return r.record(Event{Task: n, Wave: t.Wave, Role: RoleImplementer, Payload: p})
		}
		if err := ev(RemoteFinished{RunID: rr.ID, Conclusion: cmp.Or(rr.Conclusion, "cancelled")}); err != nil {
			return err
		}
		if err := ev(RemoteSettled{}); err != nil {
			return err
		}
		what := "cancelled"
		if rr.Done {
			what = "had finished"
		}
		if kept != "" {
			r.logf("task %d: %s %s; the result its worker pushed is kept on origin as branch %s", n, where, what, kept)
		} else {
			r.logf("task %d: %s %s", n, where, what)
		}
	}
	if len(left) > 0 {
		return exitcode.New(exitcode.Failure, "run %s aborted here, but these runs on GitHub Actions could not be cancelled: %s; cancel them there (gh run cancel ID) and delete their specstack/ branches",
			r.Doc.Header.RunID, strings.Join(left, "; "))
	}
	return nil
}

// Resume records that a person (or a driver) picked the run up again.
func (r *Runner) Resume() error { return r.record(Event{Payload: Resumed{}}) }

// TakeCommands makes the worker, reviewer and test commands given (each
// "" to keep the recorded one) the run's from now on, in its header,
// which the next recorded event (Resume) writes; it says which changed,
// as "worker CMD". A worker run here that cannot start is refused (as a
// new run refuses it) before anything changes.
func (r *Runner) TakeCommands(worker, reviewer, test string) ([]string, error) {
	o := &r.Doc.Header.Options
	if err := ledgerText("--worker", worker, "--reviewer", reviewer, "--test", test); err != nil {
		return nil, err
	}
	if worker != "" && worker != o.Worker && o.Executor == "" {
		if err := NeedWorker(worker, r.Backend.TargetDir()); err != nil {
			return nil, err
		}
	}
	if reviewer != o.Reviewer {
		if err := NeedReviewer(reviewer, r.Backend.TargetDir()); err != nil {
			return nil, err
		}
	}
	var took []string
	for _, f := range []struct {
		name, value string
		rec         *string
	}{{"worker", worker, &o.Worker}, {"reviewer", reviewer, &o.Reviewer}, {"test", test, &o.Test}} {
		if f.value != "" && f.value != *f.rec {
			*f.rec = f.value
			took = append(took, f.name+" "+f.value)
		}
	}
	return took, nil
}
