package apply

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
)

// takeResumeFlags gives the unfinished apply p (run r, under its lock)
// the settings f of the call resuming it, for the rest of the run, and
// records them so a later resume keeps them: the worker and its timeout
// in the run's ledger header (written with the resume's event), the
// verify commands, reviewer and push setting in the plan. It returns
// what changed, for the caller to say. A flag that cannot apply any
// more is refused (exit 2) before anything is written: --no-verify on a
// run with a gate and another --distribution (auto restates any) always
// (the gate and the split are the run's from its start), --worker and --timeout once the workers have
// finished, --verify and --reviewer once the gate passed and the change
// was archived, --no-push once the bookmark was pushed, --no-pr once the
// pull request was opened. A flag that
// restates the recorded setting is no change and never refused.
func takeResumeFlags(env *Env, r *engine.Runner, p *Plan, f ResumeFlags) ([]string, error) {
	if err := CheckTimeout(f.Timeout); err != nil {
		return nil, err
	}
	resume := "`" + env.commands(p.Change).Resume + "`"
	abort := "`" + env.commands(p.Change).Abort + "`"
	if f.NoVerify && len(p.Verify) > 0 {
		return nil, exitcode.New(exitcode.Usage, "apply --no-verify: a resumed apply keeps its verify gate; resume without it (%s; --verify CMD replaces the gate's commands), or undo the run (%s) and start it again with --no-verify", resume, abort)
	}
	if f.Distribution != "" && f.Distribution != "auto" && f.Distribution != p.Distribution {
		return nil, exitcode.New(exitcode.Usage, "apply --distribution %s: run %s of change %s started with the %s distribution, its tasks split for its workers then; resume without --distribution (%s), or undo the run (%s) and start it again with --distribution %s", f.Distribution, p.RunID, p.Change, p.Distribution, resume, abort, f.Distribution)
	}
	opts := &r.Doc.Header.Options
	t := TailOf(r.Doc)
	workersDone := r.State().Complete
	archived := t.Archived != "" || t.Archiving != ""
	worker := f.Worker != "" && f.Worker != opts.Worker
	timeout := f.Timeout != "" && f.Timeout != opts.Timeout
	verify := f.Verify != nil && !slices.Equal(f.Verify, p.Verify)
	reviewer := f.Reviewer != "" && f.Reviewer != p.Reviewer
	noPush := f.NoPush != nil && *f.NoPush != p.NoPush
	noPR := f.NoPR != nil && *f.NoPR != p.NoPR
	finished := func(flag string) error {
		return exitcode.New(exitcode.Usage, "apply --%s: the workers of run %s (change %s) have finished; no worker runs in it again: resume without --%s (%s)", flag, p.RunID, p.Change, flag, resume)
	}
	gated := func(flag string) error {
		return exitcode.New(exitcode.Usage, "apply --%s: change %s passed its verify gate and was archived (as %s); the gate does not run again: resume without --%s (%s)", flag, p.Change, cmp.Or(t.Archived, t.Archiving), flag, resume)
	}
	switch {
	case worker && workersDone:
		return nil, finished("worker")
	case timeout && workersDone:
		return nil, finished("timeout")
	case verify && archived:
		return nil, gated("verify")
	case reviewer && archived:
		return nil, gated("reviewer")
	case noPush && *f.NoPush && t.Pushed != "":
		return nil, exitcode.New(exitcode.Usage, "apply --no-push: change %s's bookmark %s was pushed already; resume without --no-push (%s), or with --no-pr to finish without a pull request", p.Change, p.Bookmark, resume)
	case noPR && *f.NoPR && t.PR != nil:
		return nil, exitcode.New(exitcode.Usage, "apply --no-pr: change %s's pull request #%d was opened already (%s); resume without --no-pr (%s)", p.Change, t.PR.Number, t.PR.URL, resume)
	}
	var took []string
	if worker {
		opts.Worker = f.Worker
		took = append(took, "worker "+f.Worker)
	}
	if timeout {
		opts.Timeout = f.Timeout
		took = append(took, "timeout "+f.Timeout)
	}
	q := *p
	if verify {
		q.Verify = slices.Clone(f.Verify)
		took = append(took, "verify "+strings.Join(f.Verify, "; "))
	}
	if reviewer {
		q.Reviewer = f.Reviewer
		took = append(took, "reviewer "+f.Reviewer)
	}
	if noPush {
		q.NoPush = *f.NoPush
		took = append(took, fmt.Sprintf("no-push %t", q.NoPush))
	}
	if noPR {
		q.NoPR = *f.NoPR
		took = append(took, fmt.Sprintf("no-pr %t", q.NoPR))
	}
	if verify || reviewer || noPush || noPR {
		if err := WritePlan(env.Dir, &q); err != nil {
			return nil, fmt.Errorf("record the resumed apply's verify, reviewer and push settings: %w", err)
		}
		*p = q
	}
	return took, nil
}
