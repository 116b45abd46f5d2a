package specwrite

import (
	"context"

	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// ArchiveOptions are archive's flags.
type ArchiveOptions struct {
	Yes          bool // archive with tasks unchecked
	SkipSpecs    bool // move the change, leave the specs
	DryRun       bool // plan only: no lock, nothing written
	NoDriftCheck bool // exactly OpenSpec's archive: no drift.Refuse
	// Confirm, when set, is asked under the lock before anything is
	// written, with the plan (made as if Yes, so unchecked tasks are in
	// plan.Incomplete): a nil answer archives, an error stops the archive
	// and comes back. Not called for a dry run.
	Confirm func(*spec.ArchivePlan) error
}

// Archive is `jj openspec archive CHANGE`: under the project lock (none
// for a dry run), the drift refusal (drift.Refuse, unless NoDriftCheck or
// SkipSpecs), the native archive's plan and, unless dry, its write
// through the intent journal, under OpenSpec's archive claim
// (ClaimName). A plan refused by validation comes back
// with the error, for its issues; any other error comes back with a nil
// plan.
func Archive(ctx context.Context, r spec.Root, name string, o ArchiveOptions) (*spec.ArchivePlan, error) {
	release, jdir, err := lockUnless(r, o.DryRun)
	if err != nil {
		return nil, err
	}
	defer release()
	// The drift check runs first, so a stale change gets its finding and
	// fix rather than the merge's refusal; a failure to read history is
	// reported only when the archive itself would go ahead.
	var driftErr error
	if !o.NoDriftCheck && !o.SkipSpecs {
		var refused bool
		refused, driftErr = drift.Refuse(ctx, r, name)
		if refused {
			return nil, Classify(driftErr)
		}
	}
	plan, err := r.PlanArchive(name, spec.ArchiveOptions{Yes: o.Yes || o.DryRun || o.Confirm != nil, SkipSpecs: o.SkipSpecs})
	if err != nil {
		return plan, Classify(err)
	}
	if driftErr != nil {
		return nil, Classify(driftErr)
	}
	if !o.DryRun {
		if o.Confirm != nil {
			if err := o.Confirm(plan); err != nil {
				return nil, err
			}
		}
		// OpenSpec's own claim, so that it and jj-openspec never archive
		// into one project at once.
		unclaim, err := claimArchive(plan.ArchivePath, plan.ArchiveName)
		if err != nil {
			return nil, err
		}
		defer unclaim()
		if err := plan.Apply(jdir); err != nil {
			return nil, Classify(err)
		}
	}
	return plan, nil
}
