package stack

import (
	"context"
	"fmt"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
)

// The workflows that change gh-specstack's ledger take its lock here, for
// their whole read-modify-write; the command layer never does, and Drive
// (which they call) does not again.

// StartOptions says how Start runs.
type StartOptions struct {
	// DryRun settles and returns the plan; nothing is recorded or run.
	DryRun bool
	// Confirm, when set, is asked with the settled plan before anything
	// is recorded; its error stops the start.
	Confirm func(*Plan) error
	// Drive is how the run is driven (its LedgerDir is the ledger's).
	Drive DriveOptions
}

// Start settles a new run of req as plan does, confirms it, records it in
// the ledger and drives it, under the ledger lock from the first read to
// the last write (exit 3 while another run holds it). The plan is
// returned whenever it was settled; the status once the run started.
func Start(ctx context.Context, env *Env, req RunRequest, o StartOptions) (*Plan, *RunStatus, error) {
	l, err := ledger.Acquire(o.Drive.LedgerDir)
	if err != nil {
		return nil, nil, err
	}
	defer l.Release()
	h, p, err := SettleRun(ctx, env, req)
	if err != nil || o.DryRun {
		return p, nil, err
	}
	if o.Confirm != nil {
		if err := o.Confirm(p); err != nil {
			return p, nil, err
		}
	}
	doc, err := RecordRun(o.Drive.LedgerDir, h)
	if err != nil {
		return p, nil, err
	}
	st, err := Drive(ctx, env, doc, o.Drive)
	return p, st, err
}

// ResumeRequest is what a resume changes in the recorded run.
type ResumeRequest struct {
	// Worker, when set, replaces the recorded worker (implementers,
	// fixers and the prior-work graph) for the rest of the run, and is
	// recorded in the ledger so a later resume keeps it.
	Worker string
}

// Resume drives the run recorded in the ledger on, under the ledger lock,
// with req's changes recorded first; with no run recorded it is a usage
// error.
func Resume(ctx context.Context, env *Env, req ResumeRequest, o DriveOptions) (*RunStatus, error) {
	l, doc, err := lockedRun(o.LedgerDir, "resume")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	if foldRun(doc).Finalized == engine.FinalAborted {
		return nil, exitcode.New(exitcode.Usage, "the run of spec #%d was aborted: nothing of it goes on; start a new run with gh specstack run %d --worker CMD --yes", doc.Header.Spec, doc.Header.Spec)
	}
	if req.Worker != "" && req.Worker != doc.Header.Worker {
		if err := takeWorker(env, doc, req.Worker, o); err != nil {
			return nil, err
		}
	}
	return Drive(ctx, env, doc, o)
}

// lockedRun takes the ledger lock (exit 3 while another holds it) and
// reads the run recorded there for verb; no run is a usage error, with
// the lock released.
func lockedRun(ledgerDir, verb string) (*ledger.Lock, *RunDoc, error) {
	l, err := ledger.Acquire(ledgerDir)
	if err != nil {
		return nil, nil, err
	}
	doc, ok, err := ReadRun(ledgerDir)
	if err == nil && !ok {
		err = exitcode.New(exitcode.Usage, "no run to %s in this repository (%s): start one with gh specstack run SPEC --worker CMD --yes", verb, RunLedgerPath(ledgerDir))
	}
	if err != nil {
		l.Release()
		return nil, nil, err
	}
	return l, doc, nil
}

// takeWorker records worker as the run's worker from now on: refused
// (exit 2) once the run is finalized, since no worker runs in it again,
// and, when workers run here, unless the worker can start (as run checks
// it). Nothing is written when it is refused.
func takeWorker(env *Env, doc *RunDoc, worker string, o DriveOptions) error {
	if f := foldRun(doc).Finalized; f != "" {
		return exitcode.New(exitcode.Usage, "resume --worker: the run of spec #%d is finalized (%s); no worker runs in it again: resume without --worker, or start a new run with gh specstack run SPEC --worker CMD --yes", doc.Header.Spec, f)
	}
	if doc.Header.Executor == "" {
		if err := engine.NeedWorker(worker, env.VCS.Root()); err != nil {
			return fmt.Errorf("resume --worker: %w", err)
		}
	}
	doc.Header.Worker = worker
	if err := doc.Write(RunLedgerPath(o.LedgerDir)); err != nil {
		return fmt.Errorf("record the resumed run's worker: %w", err)
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "resume: the run of spec #%d goes on with worker %s (recorded)\n", doc.Header.Spec, worker)
	}
	return nil
}
