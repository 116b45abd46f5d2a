package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/apply"
)

// ApplyMany is a multi-change `jj openspec apply`: it checks the worker,
// the verify gate and the ledger, resolves req to its members (the
// exclusions said on env.Out) and decides: none is exit 6 with the notes,
// one is the single-change apply, two or more a pipeline, started once
// confirm (given the plan; nil: no question) accepts it. Members never
// inherit --yes: it confirms the set, and a member never archives with
// tasks open. One of the results is set, with the error.
func ApplyMany(ctx context.Context, env *apply.Env, req PipelineRequest, confirm func(*PipelinePlan) error) (*apply.Result, *PipelineResult, error) {
	if err := engine.NeedWorker(req.Apply.Worker, env.Repo.Root); err != nil {
		return nil, nil, err
	}
	if err := apply.CheckVerify(req.Apply.Verify, req.Apply.NoVerify); err != nil {
		return nil, nil, err
	}
	if err := RefuseUnfinished(env.Dir); err != nil {
		return nil, nil, err
	}
	req.Apply.Yes = false
	plan, err := PlanPipeline(ctx, env, req)
	if err != nil {
		return nil, nil, err
	}
	for _, x := range plan.Supply.Excluded {
		fmt.Fprintf(env.Out, "apply: excluded %s: %s\n", x.Change, x.Reason)
	}
	switch len(plan.Supply.Members) {
	case 0:
		var notes []string
		for _, x := range plan.Supply.Excluded {
			notes = append(notes, x.Change+": "+x.Reason)
		}
		if len(notes) == 0 {
			notes = append(notes, "no change matched")
		}
		return nil, nil, exitcode.New(exitcode.Invalid, "apply: no apply-ready change in the pipeline (%s)", strings.Join(notes, "; "))
	case 1:
		one := plan.Supply.Members[0]
		fmt.Fprintf(env.Out, "apply: one apply-ready change (%s): the single-change apply\n", one)
		single := req.Apply
		single.Change = one
		res, err := apply.Apply(ctx, env, single)
		return res, nil, err
	}
	for _, n := range plan.Layout.Notes {
		fmt.Fprintf(env.Out, "apply: %s\n", n)
	}
	if confirm != nil {
		if err := confirm(plan); err != nil {
			return nil, nil, err
		}
	}
	res, err := StartPipeline(ctx, env, plan, req)
	return nil, res, err
}
