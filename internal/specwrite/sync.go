package specwrite

import (
	"context"
	"io"

	"github.com/specstack/specstack/internal/osapply"
	"github.com/specstack/specstack/spec"
)

// Sync is `jj openspec sync CHANGE` under the project lock (none dry):
// the change must exist (exit 2), then osapply.Sync's merge forward and
// sync of the deltas into openspec/specs/. On a halt the result, when
// there is one, holds what was planned; progress lines go to out.
func Sync(ctx context.Context, r spec.Root, name string, dry bool, out io.Writer) (*osapply.SyncResult, error) {
	release, jdir, err := lockUnless(r, dry)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := r.CheckChange(name); err != nil {
		return nil, Classify(err)
	}
	res, err := osapply.Sync(ctx, r, jdir, name, dry, out)
	return res, Classify(err)
}
