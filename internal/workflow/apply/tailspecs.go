package apply

import (
	"context"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec/drift"
)

// mergeSpecsForward is apply's drift.MergeForward (spec/drift/policy.go), recorded in its
// ledger.
func mergeSpecsForward(ctx context.Context, env *Env, r *engine.Runner, p *Plan) error {
	res, err := drift.MergeForward(ctx, drift.Forward{Root: env.Root, Journal: env.Journal, Markers: env.Markers, Change: p.Change,
		Verb: "apply", Rerun: env.commands(p.Change).Resume, Halted: "nothing archived or pushed", Out: env.Out})
	err = specwrite.ClassifyDrift(err)
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
	if rerr := r.Record(engine.Event{Payload: engine.SpecsMerged{Status: status, Files: files}}); rerr != nil {
		return rerr
	}
	return err
}
