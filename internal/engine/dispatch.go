package engine

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

// Parallel runs fn for each item with at most limit running at once
// (limit <= 0: all at once) and waits for all of them.
func Parallel[T any](ctx context.Context, items []T, limit int, fn func(context.Context, T)) {
	if limit <= 0 || limit > len(items) {
		limit = len(items)
	}
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for _, it := range items {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(ctx, it)
		}()
	}
	wg.Wait()
}

// Dispatch starts the implementer for every provisioned task of wave w
// that has no result yet, at most MaxParallel at once, and collects each
// as it returns. A task whose worker a killed run left behind is
// collected from its report when the worker finished, else its orphaned
// worker is stopped and started again in the same workspace.
func (r *Runner) Dispatch(ctx context.Context, w int) error {
	if err := r.trustRecorded(); err != nil {
		return err
	}
	// A remote executor's worker runs on the runner, which installs it.
	if r.Executor == nil {
		if err := NeedWorker(r.worker(), r.Doc.Header.Root); err != nil {
			return err
		}
	}
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	var todo []*TaskState
	for _, n := range nums {
		t := st.Tasks[n]
		if t.Workspace == "" || t.Collected || t.Squashed {
			continue
		}
		if t.Dispatched > 0 {
			StopOrphan(r.PIDPath(n))
			// A run on an executor not yet settled is taken up as it is
			// (found, followed, its result taken: once), in the
			// workspace it left, which no worker here touched.
			if rr := t.Remote; rr != nil && !rr.Settled && r.Executor != nil {
				r.logf("task %d: taking up its run on GitHub Actions again (this process died before its result was in)", n)
				todo = append(todo, t)
				continue
			}
			if _, ok := ReportStatus(r.ReportPath(n)); ok {
				if err := r.collectAndRecord(ctx, t, nil); err != nil {
					return err
				}
				continue
			}
			// The worker died with the run: start it again from a clean
			// change, so the result is the same as an uninterrupted run.
			if err := r.resetWorkspace(ctx, t); err != nil {
				return err
			}
		}
		todo = append(todo, t)
	}
	if len(todo) == 0 {
		return nil
	}
	if err := r.Budget(ctx, fmt.Sprintf("wave %d's %s", w, plural.Count(len(todo), "task", "tasks"))); err != nil {
		return err
	}
	events := make([]Event, len(todo))
	for i, t := range todo {
		events[i] = Event{Task: t.Num, Wave: w, Role: RoleImplementer, Payload: Dispatched{}}
	}
	if err := r.record(events...); err != nil {
		return err
	}
	r.logf("wave %d: %s dispatched", w, plural.Count(len(todo), "task", "tasks"))
	var mu sync.Mutex
	var errs []error
	first := true
	Parallel(ctx, todo, r.Doc.Header.Options.MaxParallel, func(ctx context.Context, t *TaskState) {
		err := r.runImplementer(ctx, w, t)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		if first {
			first = false
			crashPoint("collected")
		}
	})
	if ctx.Err() != nil {
		return exitcode.Wrap(exitcode.Interrupted, fmt.Errorf("wave %d interrupted: %w (resume continues from the ledger)", w, ctx.Err()))
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

func (r *Runner) runImplementer(ctx context.Context, w int, t *TaskState) error {
	var res Result
	if r.Executor != nil {
		res = r.runRemote(ctx, t, r.job(w, t, RoleImplementer))
	} else {
		res = r.runTracked(ctx, taskLabel(t.Num), r.job(w, t, RoleImplementer))
	}
	if ctx.Err() != nil {
		return nil // interrupted: the ledger says dispatched; resume starts it again
	}
	return r.collectAndRecord(ctx, t, &res)
}

func (r *Runner) collectAndRecord(ctx context.Context, t *TaskState, res *Result) error {
	ev, err := r.Collect(ctx, t, res)
	if err != nil {
		return fmt.Errorf("collect task %d: %w", t.Num, err)
	}
	if res != nil {
		ev.Agent = res.Agent
		for _, n := range res.Notes {
			r.logf("task %d: %s", t.Num, n)
		}
	}
	if err := r.recordTogether(Event{Task: t.Num, Wave: t.Wave, Payload: ev}); err != nil {
		return err
	}
	if ev.Status == StatusBroken {
		r.logf("task %d: %s", t.Num, ev.Reason)
		return nil
	}
	r.logf("task %d: %s, change %s, %s", t.Num, ev.Status, short(ev.Change), plural.Count(len(ev.Files), "file", "files"))
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// resetWorkspace gives task t's workspace a fresh change on its base,
// abandoning what a worker that died half-way left there.
func (r *Runner) resetWorkspace(ctx context.Context, t *TaskState) error {
	ws := Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base, Message: fmt.Sprintf("Task %d: %s", t.Num, t.Title)}
	if err := r.Backend.Reset(ctx, ws); err != nil {
		return fmt.Errorf("task %d: %w", t.Num, err)
	}
	os.Remove(r.ReportPath(t.Num))
	r.logf("task %d: restarting its worker from a clean change (the previous one died with the run)", t.Num)
	return nil
}
