package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
)

// sweepEarlier releases the workspaces that earlier runs of this ledger
// kept (their ledgers under runs/, moved there when a later run
// started): once a new run started, sweep --all is the only verb that
// reaches them. Each is released as the current run's failed tasks are
// (its empty changes abandoned, a change holding work kept for a
// person) and recorded as released in its run's ledger.
func (r *Runner) sweepEarlier(ctx context.Context) error {
	jb, ok := r.Backend.(*JJBackend)
	if !ok {
		return nil
	}
	paths, err := filepath.Glob(filepath.Join(r.Dir, "runs", "*.toml"))
	if err != nil {
		return fmt.Errorf("list earlier runs: %w", err)
	}
	var errs []error
	for _, p := range paths {
		d, err := ledger.Read[Header, Event](p)
		if err != nil {
			errs = append(errs, fmt.Errorf("read earlier run %s: %w", p, err))
			continue
		}
		if d.Header.Binary != r.Doc.Header.Binary {
			continue
		}
		if err := r.sweepRun(ctx, newRunner(jb.Repo, r.Dir, d, nil), p); err != nil {
			errs = append(errs, fmt.Errorf("earlier run %s: %w", d.Header.RunID, err))
		}
	}
	return errors.Join(errs...)
}

// sweepRun releases every workspace old (an earlier run, its ledger at
// path) kept that jj still lists, and records the releases there.
func (r *Runner) sweepRun(ctx context.Context, old *Runner, path string) error {
	st := Fold(old.Doc)
	if st.Aborted {
		return nil
	}
	live, err := old.Backend.Workspaces(ctx)
	if err != nil || len(live) == 0 {
		return err
	}
	var events []Event
	var errs []error
	for _, t := range old.Doc.Header.Tasks {
		ts := st.Tasks[t.Num]
		if ts.Workspace == "" || ts.Released || !slices.Contains(live, ts.Workspace) {
			continue
		}
		var empty []string
		if !ts.Squashed && !ts.Leak {
			empty = old.emptyChanges(ctx, ts)
		}
		if err := old.Backend.Release(ctx, Workspace{Name: ts.Workspace}); err != nil {
			errs = append(errs, fmt.Errorf("task %d: %w", t.Num, err))
			continue
		}
		events = append(events, Event{Task: t.Num, Wave: ts.Wave, At: time.Now().UTC().Truncate(time.Millisecond),
			Payload: Released{Workspace: ts.Workspace}})
		what := "released its workspace " + ts.Workspace
		if len(empty) > 0 {
			if err := old.Backend.(Abandoner).Abandon(ctx, empty...); err != nil {
				errs = append(errs, fmt.Errorf("task %d: abandon its empty change: %w", t.Num, err))
			} else {
				what += ", abandoned " + plural.Word(len(empty), "its change", "its changes") + " (empty)"
			}
		}
		r.logf("run %s, task %d: %s", old.Doc.Header.RunID, t.Num, what)
	}
	if len(events) > 0 {
		if err := old.Doc.Append(path, events...); err != nil {
			errs = append(errs, err)
		}
	}
	old.removeWorkspacesDir()
	return errors.Join(errs...)
}
