package apply

import (
	"cmp"
	"context"
	"fmt"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
)

// PhaseOf names where the apply run of ledger d stands.
func PhaseOf(d *engine.Doc) string {
	st := engine.Fold(d)
	t := TailOf(d)
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
		return PhaseTail
	}
	return PhaseWorkers
}

// Aborted is what an abort did, and what it could not take back: the
// bookmark pushed to origin and the pull request opened stay there.
type Aborted struct {
	*Plan
	// Pushed is the bookmark's commit on origin when the run pushed it;
	// Origin is origin's URL.
	Pushed string        `json:"pushed_commit,omitempty"`
	Origin string        `json:"origin,omitempty"`
	PR     *forge.PRView `json:"pr,omitempty"`
}

// NotUndone says, one line each, what the abort left on origin and
// GitHub.
func (a *Aborted) NotUndone() []string {
	var out []string
	if a.Pushed != "" {
		out = append(out, fmt.Sprintf("bookmark %s stays on origin (%s) at %s: delete it there if it should go (`git push %s --delete %s`)", a.Bookmark, a.Origin, record.ShortID(a.Pushed), a.Origin, a.Bookmark))
	}
	if a.PR != nil {
		out = append(out, fmt.Sprintf("pull request #%d stays open (%s): close it if it should go", a.PR.Number, a.PR.URL))
	}
	return out
}

// Abort undoes the apply run in env's ledger: the engine's abort (its
// start operation restored, its workspaces removed, the run recorded as
// aborted), then the operation from before apply described @ restored.
// Without yes it refuses, like the engine, a run whose undo would lose
// work. What the run published (a pushed bookmark, a pull request) is
// not undone: the result names it.
func Abort(ctx context.Context, env *Env, yes bool) (*Aborted, error) {
	p, ok, err := ReadPlan(env.Dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, exitcode.New(exitcode.Usage, "no apply run in the ledger (%s)", env.Dir)
	}
	r, err := openRun(ctx, env)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Doc.Header.RunID != p.RunID {
		return nil, exitcode.New(exitcode.Usage, "the ledger's run %s is not the apply run %s: nothing to abort", r.Doc.Header.RunID, p.RunID)
	}
	a := &Aborted{Plan: p}
	t := TailOf(r.Doc)
	if t.Pushed != "" {
		a.Pushed = cmp.Or(t.PushedCommit, t.Bookmarked)
		a.Origin = gitx.Origin
		if remotes, err := env.Repo.GitRemotes(ctx); err == nil && remotes[gitx.Origin] != "" {
			a.Origin = remotes[gitx.Origin]
		}
	}
	a.PR = t.PR
	if o := r.Doc.Header.Options; o.Executor != "" && !r.State().Aborted {
		// Its live runs on GitHub Actions are cancelled; without GitHub
		// the abort still undoes the run here and names them.
		if r.Executor, err = env.connect(ctx, o); err != nil {
			fmt.Fprintf(env.Out, "apply: cannot reach the runs on GitHub Actions: %v\n", err)
		}
	}
	err = r.Abort(ctx, yes)
	if err != nil && !r.State().Aborted {
		return nil, err
	}
	if p.PreOp != "" {
		if err := env.Repo.OpRestore(ctx, p.PreOp); err != nil {
			return a, fmt.Errorf("restore operation %s (before apply): %w", record.ShortID(p.PreOp), err)
		}
	}
	return a, err // the runs abort could not cancel, named
}

// StatusView is `apply --status --json`: one shape whether or not a run
// exists (plan and run are null when the ledger holds none).
type StatusView struct {
	LedgerDir string           `json:"ledger_dir"`
	Plan      *Plan            `json:"plan"`
	Run       *engine.Coverage `json:"run"`
	Phase     string           `json:"phase"`
	// PID is the live process driving an unfinished apply; Next, when
	// none does, how to go on.
	PID  int    `json:"pid,omitempty"`
	Next string `json:"next,omitempty"`
	// Verify is the verify gate: passed, failed or not-run; VerifyNote
	// its commands or why it failed.
	Verify     string `json:"verify"`
	VerifyNote string `json:"verify_note,omitempty"`
}

// Status reads the apply run in dir's ledger: where it stands, whether a
// live process drives it (the ledger lock's holder) and its verify gate,
// which is apply's gate (the engine's own final gate never runs a
// command for apply, so it is left out).
func Status(dir string) (*StatusView, error) {
	v := &StatusView{LedgerDir: dir, Phase: "none"}
	p, ok, err := ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	d, dok, err := engine.Load(dir)
	if err != nil {
		return nil, err
	}
	if !ok || !dok || d.Header.RunID != p.RunID {
		return v, nil
	}
	cmds := Commands(p.Change)
	v.Plan, v.Run, v.Phase = p, engine.BuildCoverage(d, engine.ArtifactsDir(dir)), PhaseOf(d)
	v.Run.Settle(dir, cmds)
	v.Run.Next = "" // the apply's own, below
	v.Run.Gate, v.Run.GateNote = "", ""
	t := TailOf(d)
	switch {
	case t.VerifyGreen:
		v.Verify, v.VerifyNote = engine.GatePassed, t.VerifyNote
	case t.VerifyRed:
		v.Verify, v.VerifyNote = engine.GateFailed, t.VerifyNote
	default:
		v.Verify = "not-run"
	}
	if v.Phase == PhaseWorkers || v.Phase == PhaseTail {
		if v.PID = engine.Driver(dir); v.PID == 0 {
			v.Next = fmt.Sprintf("no process is driving the apply: resume with `%s`, or undo it with `%s`", cmds.Resume, cmds.Abort)
		}
	}
	return v, nil
}
