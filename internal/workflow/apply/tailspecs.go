package apply

import (
	"context"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/specwrite"
)

// EvSpecsMerged records the change's delta specs merged forward onto
// main specs edited since its base (Files: the rewritten files; Status
// clean or conflicts).
const EvSpecsMerged = "apply-specs-merged"

// mergeSpecsForward is apply's specwrite.MergeForward, recorded in its
// ledger.
func mergeSpecsForward(ctx context.Context, env *Env, r *engine.Runner, p *Plan) error {
	res, err := specwrite.MergeForward(ctx, specwrite.Forward{Root: env.Root, Journal: env.Journal, Markers: env.Markers, Change: p.Change,
		Verb: "apply", Rerun: env.commands(p.Change).Resume, Halted: "nothing archived or pushed", Out: env.Out})
	if res == nil {
		return err
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	status := "clean"
	if res.Conflicts > 0 {
		status = "conflicts"
	}
	if rerr := r.Record(engine.Event{Kind: EvSpecsMerged, Status: status, Files: files}); rerr != nil {
		return rerr
	}
	return err
}
