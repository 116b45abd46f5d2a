package specwrite

import (
	"context"
	"errors"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// Rebase is `jj openspec rebase CHANGE`: under the project lock (none
// dry), the three-way merge of the change's stale MODIFIED requirements
// onto the live specs (drift's PlanRebase) and, unless dry, its write
// into the change through the intent journal. No base at all is exit 1.
// Conflict markers written are in the result (Conflicts), not an error.
func Rebase(ctx context.Context, r spec.Root, name string, dry bool) (*drift.RebaseResult, error) {
	release, jdir, err := lockUnless(r, dry)
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := drift.Open(ctx, r)
	if err != nil {
		return nil, err
	}
	res, err := p.PlanRebase(ctx, name)
	if errors.Is(err, drift.ErrNoBase) {
		return nil, exitcode.Wrap(exitcode.Failure, err)
	}
	if err != nil {
		return nil, Classify(err)
	}
	if !dry {
		if err := res.Apply(r, jdir); err != nil {
			return nil, Classify(err)
		}
	}
	return res, nil
}
