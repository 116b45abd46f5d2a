package specwrite

import (
	"context"
	"io"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// Sync is `jj openspec sync CHANGE` under the project lock (none dry):
// the change must exist (exit 2), then the merge forward (drift.MergeForward) and
// sync of the deltas into openspec/specs/. On a halt the result, when
// there is one, holds what was planned; progress lines go to out.
func Sync(ctx context.Context, r spec.Root, name string, dry bool, out io.Writer) (*SyncResult, error) {
	release, jdir, err := lockUnless(r, dry)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := r.CheckChange(name); err != nil {
		return nil, Classify(err)
	}
	res, err := syncSpecs(ctx, r, jdir, name, dry, out)
	return res, Classify(err)
}

// SyncResult is what Sync did (or, dry, would do): the three-way merge
// of the change's deltas onto specs edited since its base (nil when none
// was needed) and the sync of the (merged) deltas into the main specs.
type SyncResult struct {
	Merge *drift.RebaseResult
	Plan  *spec.ArchivePlan
}

// syncSpecs is OpenSpec's sync of change's delta specs
// into openspec/specs/ without archiving, after the drift check and
// three-way merge apply's archive runs (drift.MergeForward), so a stale
// MODIFIED requirement is merged, not written over live edits. Dry plans
// both and writes nothing. On a halt the result holds what was planned
// (the merge's conflicts; the plan's validation issues). The caller holds
// the project lock; journal is its intent journal's directory.
func syncSpecs(ctx context.Context, r spec.Root, journal, change string, dry bool, out io.Writer) (*SyncResult, error) {
	merge, err := drift.MergeForward(ctx, drift.Forward{Root: r, Journal: journal, Markers: drift.MarkerIssues, Change: change,
		Verb: "sync", Rerun: "jj openspec sync " + change, Halted: "nothing synced", DryRun: dry, Out: out})
	res := &SyncResult{Merge: merge}
	if err != nil {
		return res, err
	}
	if merge != nil && !dry {
		// The merged delta is written, the specs are not yet: a sync
		// killed here is run again and goes on from the merged delta.
		engine.CrashPoint("sync-merged")
	}
	planRoot := r
	if dry && merge != nil {
		// The specs as the merged deltas, not yet written, make them.
		planRoot = r.WithFiles(merge.Contents())
	}
	res.Plan, err = planRoot.PlanArchive(change, spec.ArchiveOptions{Yes: true})
	if err != nil || dry {
		return res, err
	}
	return res, res.Plan.Sync(journal)
}
