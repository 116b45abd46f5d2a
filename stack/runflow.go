package stack

import (
	"context"

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

// Resume drives the run recorded in the ledger on, under the ledger lock;
// with no run recorded it is a usage error.
func Resume(ctx context.Context, env *Env, o DriveOptions) (*RunStatus, error) {
	l, err := ledger.Acquire(o.LedgerDir)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	doc, ok, err := ReadRun(o.LedgerDir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, exitcode.New(exitcode.Usage, "no run to resume in this repository (%s): start one with gh specstack run SPEC --worker CMD --yes", RunLedgerPath(o.LedgerDir))
	}
	return Drive(ctx, env, doc, o)
}
