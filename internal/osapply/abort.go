package osapply

import (
	"context"
	"fmt"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
)

// PhaseOf names where the apply run of ledger d stands.
func PhaseOf(d *engine.Doc) string {
	st := engine.Fold(d)
	t := tailOf(d)
	switch {
	case st.Aborted:
		return "aborted"
	case t.Applied && t.Pushed == "":
		return PhaseUnpushed
	case t.Applied && t.PR == nil:
		return PhaseNoPR
	case t.Applied:
		return PhaseApplied
	case t.VerifyRed:
		return PhaseVerify
	case t.SpecsConflict && t.Archived == "":
		return PhaseSpecs
	case workersFailed(d):
		return PhaseWorkersFailed
	case st.Halted != "":
		return "halted"
	case st.Complete:
		return "tail"
	}
	return PhaseWorkers
}

// Abort undoes the apply run in env's ledger: the engine's abort (its
// start operation restored, its workspaces removed, the run recorded as
// aborted), then the operation from before apply described @ restored.
// Without yes it refuses, like the engine, a run whose undo would lose
// work.
func Abort(ctx context.Context, env *Env, yes bool) (*Plan, error) {
	p, ok, err := ReadPlan(env.Dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, exitcode.New(exitcode.Usage, "no apply run in the ledger (%s)", env.Dir)
	}
	r, err := engine.Open(ctx, env.Repo, env.Dir, env.Out)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Doc.Header.RunID != p.RunID {
		return nil, exitcode.New(exitcode.Usage, "the ledger's run %s is not the apply run %s: nothing to abort", r.Doc.Header.RunID, p.RunID)
	}
	if err := r.Abort(ctx, yes); err != nil {
		return nil, err
	}
	if p.PreOp != "" {
		if err := env.Repo.OpRestore(ctx, p.PreOp); err != nil {
			return p, fmt.Errorf("restore operation %s (before apply): %w", shortID(p.PreOp), err)
		}
	}
	return p, nil
}
