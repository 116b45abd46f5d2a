package openspeccli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/pipeline"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

func applyCommand() *cli.Command {
	return &cli.Command{
		Name:         "apply",
		Usage:        "implement a change with a worker (or one per separable group) in jj workspaces, verify, archive, push, open the PR",
		ArgsUsage:    "[CHANGE...]",
		BashComplete: completeChange,
		Description: `The implementing shape. CHANGE is the argument, else the only active change
with unticked tasks (several or none: exit 5 listing them). It must be
apply-ready by its schema (else exit 6 naming the artifacts to author first)
and pass the health check, the native "openspec validate" (the real OpenSpec
CLI's when the change's schema is a project schema in openspec/schemas/) with
conflict markers refused: a failure is a BLOCKER (exit 6) and nothing is
provisioned. Names are checked first (exit 6, naming the rule): the
feat/<slug> bookmark must be a valid git branch and jj bookmark (git
check-ref-format), shared by no other active change, and the archive folder
YYYY-MM-DD-NAME at most 255 bytes.

Base: when @ holds edits (the change's artifacts, uncommitted) it is
described "docs(openspec): CHANGE change artifacts" if it has no description
and a new change "feat(openspec): implement CHANGE" is made on it; an empty @
is that change. Workers start from its parent; their work is squashed into
it, so the change ends as ONE change holding the implementation, the ticks
and the archive. The feat/<slug> bookmark is set on it at the end; one that
already exists elsewhere, or on origin when apply will push, is exit 5
before anything runs. Once it is applied (pushed or not), @ is a new empty
change on it (working_copy in --json), so later edits do not slip into the
change the gate passed; a pipeline member's workspace keeps its @.

Distribution (--distribution): auto fans out one worker per separable
tasks.md group when at least two pass the size gate ([openspec]
min-group-tasks), else one worker; the choice and its reasons are printed
and recorded. Each fanned-out brief lists only its group's tasks; tasks.md
conflicts are reconciled, any other conflict halts (exit 4) naming files.
Workers run through jj-kaisen's engine (SPECSTACK_WORKSPACE, SPECSTACK_BRIEF,
SPECSTACK_REPORT, ... as in jj kaisen run).

Tail, once over the integrated change. Delta specs written against main specs
edited since (on trunk, merged in) are merged forward three ways first: a
clean merge is archived with both sides' edits; a conflict is written into
the delta as markers and apply halts (exit 4) naming the file, requirement
and both sides, until "jj openspec resolve" or an edit settles it and apply
is run again. Then the verify gate runs each --verify
command (and [openspec] verify, and the --reviewer command) in @; receipts
bound to @'s tree are recorded and a passing one is reused. Red: nothing
archived or pushed, the change left in @, the failing commands and unticked
tasks listed, exit 8. Green: a task is ticked by facts when its group's
worker exited 0, reported "Status: DONE" and changed a file the task
names; other unticked tasks block (exit 5) unless --yes; the change is archived natively into the same change; the
bookmark is set, pushed once (jj git push -b, never over another commit)
and the pull request created or updated with the archived proposal.md as
its body; then [openspec] tracker runs with SPECSTACK_CHANGE,
SPECSTACK_BOOKMARK and SPECSTACK_PR_URL. --no-push stops after the bookmark,
its report's "publish:" line (publish_command in --json) naming the gh
specstack command that publishes the change as apply would have;
--no-pr (or [openspec] pr = false) pushes and opens no pull request. When a
pull request will be opened, its needs (a GitHub repository from GH_REPO or
origin, a token, gh-specstack) are checked before any worker runs (gh
specstack pr --check): a gap is exit 7 naming it. A run stranded at the PR
step finishes push-only when resumed with --no-pr.

Risk: a proposal.md line "Risk flags: AUTH, MIGRATION" (FINANCE, AUTH,
MIGRATION, STATE_MACHINE, EXTERNAL_API, ENV_OPS, PERSIST or none), or tasks
naming more files than [openspec] risk-max-files (or files in more folders
than risk-max-modules), routes the change at level
risk (else standard): it refuses --no-verify, requires --reviewer (exit 5)
and never fans out a group with fewer unchecked tasks than [openspec]
risk-min-group-tasks (default 3). The level and why are printed and recorded.

The run is in the ledger .jj/specstack/jj-openspec/ under the project lock
(exit 3 while another holds it). A killed apply resumes by running apply
again (the same change, or no CHANGE); --worker, --timeout, --verify,
--reviewer, --no-push and --no-pr given there are used for the rest of the run and
recorded for later resumes (without them the recorded settings are kept,
not the configuration's). A flag that cannot apply any more is refused
(exit 2): --no-verify and another --distribution always, --worker and
--timeout once the workers finished, --verify and --reviewer once the
change is archived, --no-push once it is pushed, --no-pr once the pull
request is open. --status, --log and
--abort show and undo it (abort restores the operation from before apply;
exit 5 without --yes when it would lose work; what it cannot take back, the
bookmark pushed to origin and the open pull request, is named with its URL).

Pipeline: several CHANGEs, or --select SELECTOR (a glob over change names
and/or status=no-tasks|in-progress|complete, comma-joined; repeatable), are
resolved before anything runs to one de-duplicated set (a name failing the
checks above refuses the plan, exit 6); a change that is
missing, not apply-ready, malformed, whose bookmark exists or has nothing
to do is excluded with a note. The set and its width (workspaces) are printed; a terminal asks y/N,
otherwise --yes is needed (exit 5). Two or more changes make a pipeline, one
takes the single-change path above, none is exit 6 with the notes. Each
member is an ordinary apply in its own workspace on its own proposal
revision (the newest revision of ::@ touching its folder; commit the
artifacts first), with its own ledger, feat/<slug> bookmark, verify,
archive, push and PR; independent members run --max-parallel at a time and
land in any order, a failed one blocks nobody. "--after C:D" (and a
"Depends on: D" line in C's proposal.md) puts C after D in a stitched
stack: C's workspace is based on D's landed change, C's PR on D's bookmark,
and the stack is registered as gh specstack link does (native or chain).
A dependency cycle is an error naming it; its members are not applied, the
others still land. The summary (stdout, or --json) gives per change landed
/ stacked k of N / failed (why) / blocked, bookmark, PR, verify, unticked
tasks and the kept workspace of a member that did not land; then exit 1 when
one did not. --yes confirms the set only: members do not archive with open
tasks. A member halted in its tail (verify red, tasks not done) is fixed in
its workspace (named), then the pipeline resumed. A killed pipeline, or one
with failed members, resumes with "jj openspec apply" (no CHANGE);
--worker, --timeout, --verify, --reviewer, --no-push and --max-parallel
given there apply to the members not landed (one under way too) and are
recorded for later resumes; --no-verify and --distribution are refused
there (exit 2). --status and --log show every member, --abort removes the
workspaces of the members that did not land and ends it (landed members
keep their bookmarks and PRs).

Exit codes: 0 applied; 1 a pipeline member did not land; 2 usage (a
dependency cycle too); 3 locked; 4 conflicts; 5 a decision
(change to name, existing bookmark, risk, unticked tasks); 6 not ready or
malformed; 7 a missing tool or what the pull request needs; 8 verify red;
9 a worker's group was not merged.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "worker", Usage: "implementer: an agent preset (claude, codex) or a `CMD` run by sh -c in each workspace (default: [worker] command; on a resume, the run's)"},
			&cli.StringFlag{Name: "executor", Usage: "where implementers and fixers run (reviewers run here): local (default, or [executor] kind) or github-actions (a runner per job, through .github/workflows/specstack-worker.yml; see gh specstack workflow init); one change at a time"},
			cliapp.MaxCostFlag("the apply halts (exit 9); apply again with a higher --max-cost goes on"),
			&cli.StringSliceFlag{Name: "verify", Usage: "verify gate `CMD`, repeatable, added to [openspec] verify"},
			&cli.BoolFlag{Name: "no-verify", Usage: "archive without a verify command (refused for risk-flagged changes)"},
			&cli.StringFlag{Name: "reviewer", Usage: "reviewer `CMD` run in the gate after the verify commands (default: [worker] reviewer; on a resume, the run's)"},
			&cli.StringFlag{Name: "distribution", Value: apply.Auto, Usage: "auto, single or fan-out"},
			&cli.BoolFlag{Name: "no-push", Usage: "stop after archive and bookmark: no push, no pull request"},
			&cli.BoolFlag{Name: "no-pr", Usage: "push the bookmark but open no pull request (also [openspec] pr = false); a run stranded at the PR step finishes with it"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "archive although tasks are not done; abort a run that would lose work"},
			&cli.StringFlag{Name: "timeout", Usage: "per-worker `DURATION` (default: [worker] timeout; on a resume, the run's)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "preview: print and record the manifest of what apply would do; change nothing"},
			&cli.StringFlag{Name: "from-preview", Usage: "execute exactly the preview `ID` a --dry-run recorded (refused when the repository moved since)"},
			&cli.BoolFlag{Name: "status", Usage: "show the apply run (or pipeline) in the ledger"},
			&cli.BoolFlag{Name: "log", Usage: "show the apply run's ledger (each pipeline member's) as a log, newest first"},
			&cli.BoolFlag{Name: "abort", Usage: "undo the apply run: restore the operation from before it (a pipeline: remove the workspaces of members that did not land)"},
		}, pipelineFlags()...),
		Action: runApply,
	}
}

// applySession is the orchestrating jj workspace, the project and the
// ledger directory.
type applySession struct {
	env *apply.Env
	cfg *config.Config
}

// configuredRequest is an apply request with what the configuration and
// the flags apply and relay go share: the verify commands ([openspec]
// verify, then each --verify), --no-push, the routing and size gates, the
// tracker hook and the workspaces folder.
func configuredRequest(c *cli.Context, s *applySession) apply.Request {
	return apply.Request{
		Verify:            append(append([]string{}, s.cfg.OpenSpec.Verify...), c.StringSlice("verify")...),
		NoPush:            c.Bool("no-push"),
		NoPR:              c.Bool("no-pr") || !s.cfg.OpenSpec.OpensPR(),
		MinGroupTasks:     s.cfg.OpenSpec.MinGroupTasks,
		RiskMaxFiles:      s.cfg.OpenSpec.RiskMaxFiles,
		RiskMinGroupTasks: s.cfg.OpenSpec.RiskMinGroupTasks,
		RiskMaxModules:    s.cfg.OpenSpec.RiskMaxModules,
		Tracker:           s.cfg.OpenSpec.Tracker,
		WorkspacesDir:     config.WorkspacesDir(s.cfg, s.env.Repo.Root),
	}
}

func openApply(c *cli.Context) (*applySession, error) {
	return openSession(c, false)
}

// openSession is openApply; ledgerOnly (--status, --log, --abort) also
// opens a jj workspace whose openspec/ directory is gone from the working
// copy (a worker's rewrite of history took it away): those read the
// ledger, not the project.
func openSession(c *cli.Context, ledgerOnly bool) (*applySession, error) {
	r, err := openRoot(c)
	if err != nil && ledgerOnly && errors.Is(err, spec.ErrNoRoot) {
		r, err = ledgerRoot(c, err)
	}
	if err != nil {
		return nil, err
	}
	rp, err := repo.Find(r.Dir)
	if err != nil || !rp.IsJJ() {
		return nil, exitcode.New(exitcode.Missing, "%s is not in a jj workspace: apply runs workers in jj workspaces (run `jj git init --colocate` in a git repository)", r.Dir)
	}
	bin, _, err := jjx.Find(c.Context)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(rp.Root)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	dir := rp.LedgerDir(binary)
	jr := &jjx.Repo{Root: rp.Root, Bin: bin}
	return &applySession{cfg: cfg, env: &apply.Env{
		Repo: jr, Root: r, Dir: dir, Journal: specwrite.JournalDir(dir),
		Out: cliapp.Stderr(c), Markers: drift.MarkerIssues,
		Executor: func(ctx context.Context, o engine.Options) (engine.Executor, error) {
			return actionsworker.Connect(ctx, jr, engine.ArtifactsDir(dir), o)
		},
	}}, nil
}

func runApply(c *cli.Context) error {
	call := pipeline.Call{Mode: pipeline.ModeRun}
	for _, f := range []struct {
		flag string
		mode pipeline.Mode
	}{{"status", pipeline.ModeStatus}, {"log", pipeline.ModeLog}, {"abort", pipeline.ModeAbort}} {
		if c.Bool(f.flag) {
			if call.Mode != pipeline.ModeRun {
				return exitcode.New(exitcode.Usage, "apply: give one of --status, --log, --abort")
			}
			call.Mode = f.mode
		}
	}
	args, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	s, err := openSession(c, call.Mode != pipeline.ModeRun)
	if err != nil {
		return err
	}
	call.Yes = c.Bool("yes")
	if call.Mode == pipeline.ModeRun {
		if err := warnConfig(c, s.env.Root); err != nil {
			return err
		}
		if call, err = parseApplyCall(c, s, call, args); err != nil {
			return err
		}
	}
	out, err := pipeline.Apply(c.Context, s.env, call)
	return emitApplyOutcome(c, out, err)
}

// parseApplyCall reads a run's flags and the configuration into call.
func parseApplyCall(c *cli.Context, s *applySession, call pipeline.Call, args []string) (pipeline.Call, error) {
	req := configuredRequest(c, s)
	req.Worker = cmp.Or(c.String("worker"), s.cfg.Worker.Command)
	req.NoVerify = c.Bool("no-verify")
	req.Reviewer = cmp.Or(c.String("reviewer"), s.cfg.Worker.Reviewer)
	req.Distribution = c.String("distribution")
	req.Yes = call.Yes
	req.Timeout = cmp.Or(c.String("timeout"), s.cfg.Worker.Timeout)
	var err error
	if req.Executor, err = engine.ParseExecutor(cmp.Or(c.String("executor"), s.cfg.Executor.Kind)); err != nil {
		return call, err
	}
	req.ExecutorMaxParallel = s.cfg.Executor.MaxParallel
	if req.MaxCost, err = cliapp.MaxCost(c, s.cfg.Worker.MaxCost); err != nil {
		return call, err
	}
	call.Names, call.Request, call.Given = args, req, *resumeFlags(c, s)
	call.DryRun, call.FromPreview = c.Bool("dry-run"), c.String("from-preview")
	call.MaxParallel, call.MaxParallelSet = c.Int("max-parallel"), c.IsSet("max-parallel")
	if call.Selectors, call.After, err = parsePipelineFlags(c); err != nil {
		return call, err
	}
	call.Confirm = confirmPipeline(c)
	return call, nil
}

// emitApplyOutcome renders what pipeline.Apply did, or returns its
// error: the result of a run shown with the error it ended with.
func emitApplyOutcome(c *cli.Context, out *pipeline.Outcome, err error) error {
	if out == nil {
		return err
	}
	switch {
	case out.Single != nil:
		return emitApply(c, out.Single, err)
	case out.Manifest != nil && err == nil:
		m := out.Manifest
		return cliapp.Emit(c, m, func(w io.Writer) error { return writeManifest(w, m) })
	case err != nil && out.Pipeline == nil:
		return err
	case out.Run != nil:
		return emitPipelineMode(c, out)
	case out.Pipeline != nil:
		return emitPipeline(c, out.Pipeline, err)
	case out.Status != nil:
		return emitApplyStatus(c, out.Status)
	case out.Aborted != nil:
		return emitAbort(c, out.Aborted)
	}
	return emitApplyLog(c, out.LedgerDir, out.Log)
}

// resumeFlags are the flags an unfinished single apply is resumed with:
// only those given (a resume keeps the run's recorded settings, not the
// configuration's defaults), --verify with [openspec] verify as a start
// takes them.
func resumeFlags(c *cli.Context, s *applySession) *apply.ResumeFlags {
	f := &apply.ResumeFlags{Worker: c.String("worker"), Timeout: c.String("timeout"), Reviewer: c.String("reviewer"), NoVerify: c.Bool("no-verify")}
	if c.IsSet("verify") {
		f.Verify = configuredRequest(c, s).Verify
	}
	if c.IsSet("distribution") {
		f.Distribution = c.String("distribution")
	}
	if c.IsSet("no-push") {
		no := c.Bool("no-push")
		f.NoPush = &no
	}
	if c.IsSet("no-pr") {
		no := c.Bool("no-pr")
		f.NoPR = &no
	}
	return f
}

// emitApply shows res (when there is one) and returns err, or the error
// of showing it.
func emitApply(c *cli.Context, res *apply.Result, err error) error {
	if res != nil {
		if eerr := cliapp.Emit(c, res, func(w io.Writer) error { return writeApply(w, res) }); eerr != nil && err == nil {
			err = eerr
		}
	}
	return err
}

func writeApply(w io.Writer, res *apply.Result) error {
	var b strings.Builder
	p := res.Plan
	fmt.Fprintf(&b, "change: %s\n", p.Change)
	if p.Level != "" {
		fmt.Fprintf(&b, "level: %s (%s)\n", p.Level, strings.Join(p.LevelReasons, "; "))
	}
	fmt.Fprintf(&b, "distribution: %s (%s)\n", p.Distribution, strings.Join(p.Reasons, "; "))
	if res.Coverage != nil {
		fmt.Fprintf(&b, "workers: %d/%d merged\n", res.Coverage.Merged, res.Coverage.Total)
	}
	for _, v := range res.Verify {
		state := "passed"
		if !v.Passed {
			state = fmt.Sprintf("FAILED (exit %d; log %s)", v.ExitCode, v.Log)
		} else if v.Reused {
			state = "passed (receipt reused)"
		}
		fmt.Fprintf(&b, "verify %q: %s\n", v.Command, state)
	}
	if len(res.Ticked) > 0 {
		fmt.Fprintf(&b, "ticked by facts: %s\n", strings.Join(res.Ticked, ", "))
	}
	for _, t := range res.Unticked {
		fmt.Fprintf(&b, "unticked: %s\n", t)
	}
	if res.ArchivedAs != "" {
		fmt.Fprintf(&b, "archived as: %s\n", res.ArchivedAs)
	}
	if res.Pushed != "" {
		fmt.Fprintf(&b, "bookmark: %s (%s)\n", p.Bookmark, res.Pushed)
	} else if res.Phase == apply.PhaseUnpushed {
		fmt.Fprintf(&b, "bookmark: %s (not pushed: --no-push)\n", p.Bookmark)
	}
	if res.PR != nil {
		fmt.Fprintf(&b, "pull request: #%d %s (%s)\n", res.PR.Number, res.PR.Action, res.PR.URL)
	} else if res.Phase == apply.PhaseNoPR {
		b.WriteString("pull request: none (--no-pr)")
		if res.PublishCommand != "" {
			fmt.Fprintf(&b, "; to open it: %s", res.PublishCommand)
		}
		b.WriteString("\n")
	}
	if res.PublishCommand != "" && res.Phase == apply.PhaseUnpushed {
		what := "push " + p.Bookmark + " to origin and open its pull request"
		if p.NoPR {
			what = "push " + p.Bookmark + " to origin"
		}
		fmt.Fprintf(&b, "publish: not done (--no-push); to %s: %s\n", what, res.PublishCommand)
	}
	if res.Phase != "" {
		fmt.Fprintf(&b, "phase: %s\n", res.Phase)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeManifest(w io.Writer, m *apply.Manifest) error {
	var b strings.Builder
	fmt.Fprintf(&b, "preview %s (operation %s): nothing was changed\n", m.ID, shortOp(m.Op))
	fmt.Fprintf(&b, "shape: %s\nchange: %s\n", m.Shape, m.Change)
	fmt.Fprintf(&b, "level: %s (%s)\n", m.Level, strings.Join(m.LevelReasons, "; "))
	fmt.Fprintf(&b, "distribution: %s (%s)\n", m.Distribution, strings.Join(m.Reasons, "; "))
	fmt.Fprintf(&b, "base: %s\n", m.Base)
	if m.Describe != "" {
		fmt.Fprintf(&b, "describe @: %q\n", m.Describe)
	}
	fmt.Fprintf(&b, "bookmark: %s\n", m.Bookmark)
	fmt.Fprintf(&b, "worker command: %s\n", m.Request.Worker)
	for _, wk := range m.Workers {
		fmt.Fprintf(&b, "worker %d: %s (%s)\n", wk.Task, wk.Title, strings.Join(wk.Files, ", "))
		for _, l := range strings.Split(strings.TrimRight(wk.Brief, "\n"), "\n") {
			fmt.Fprintf(&b, "    | %s\n", l)
		}
	}
	for _, v := range m.Verify {
		fmt.Fprintf(&b, "verify: %s\n", v)
	}
	if m.Reviewer != "" {
		fmt.Fprintf(&b, "reviewer: %s\n", m.Reviewer)
	}
	fmt.Fprintf(&b, "archive as: %s\n", m.ArchiveAs)
	fmt.Fprintf(&b, "push: %s\n", m.Push)
	if m.ArchiveDiff != "" {
		b.WriteString("archive diff:\n")
		b.WriteString(m.ArchiveDiff)
	}
	fmt.Fprintf(&b, "run it: jj openspec apply --from-preview %s\n", m.ID)
	_, err := io.WriteString(w, b.String())
	return err
}

func emitApplyStatus(c *cli.Context, v *apply.StatusView) error {
	dir := v.LedgerDir
	return cliapp.Emit(c, v, func(w io.Writer) error {
		if v.Plan == nil {
			_, err := fmt.Fprintf(w, "no apply run in the ledger (%s)\n", dir)
			return err
		}
		phase := v.Phase
		switch {
		case v.PID != 0:
			phase += fmt.Sprintf(", running (pid %d)", v.PID)
		case v.Next != "":
			phase += ", " + engine.PhaseInterrupted
		}
		fmt.Fprintf(w, "apply of %s: %s (%s, bookmark %s)\n", v.Plan.Change, phase, v.Plan.Distribution, v.Plan.Bookmark)
		if v.Next != "" {
			fmt.Fprintf(w, "%s: %s\n", engine.PhaseInterrupted, v.Next)
		}
		if err := v.Run.Text(w); err != nil {
			return err
		}
		if v.VerifyNote != "" {
			fmt.Fprintf(w, "verify: %s (%s)\n", v.Verify, v.VerifyNote)
		} else {
			fmt.Fprintf(w, "verify: %s\n", v.Verify)
		}
		_, err := fmt.Fprintf(w, "ledger: %s\n", engine.LedgerPath(dir))
		return err
	})
}

func emitApplyLog(c *cli.Context, dir string, l *engine.RunLog) error {
	return cliapp.Emit(c, struct {
		LedgerDir string         `json:"ledger_dir"`
		Run       *engine.RunLog `json:"run"`
	}{dir, l}, func(w io.Writer) error {
		if l == nil {
			_, err := fmt.Fprintf(w, "no apply run in the ledger (%s)\n", dir)
			return err
		}
		return l.Text(w)
	})
}

func emitAbort(c *cli.Context, a *apply.Aborted) error {
	return cliapp.Emit(c, a, func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "apply of %s (run %s) aborted: restored to operation %s\n", a.Change, a.RunID, shortOp(a.PreOp))
		for _, l := range a.NotUndone() {
			fmt.Fprintf(&b, "not undone: %s\n", l)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

func shortOp(op string) string {
	if len(op) > 12 {
		return op[:12]
	}
	return op
}

// ledgerRoot is the jj workspace around --repo (or the current
// directory) as the project's root, when it holds a jj-openspec ledger;
// else noRoot, the error of looking for openspec/.
func ledgerRoot(c *cli.Context, noRoot error) (spec.Root, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return spec.Root{}, exitcode.Wrap(exitcode.Usage, err)
	}
	rp, err := repo.Find(dir)
	if err != nil || !rp.IsJJ() {
		return spec.Root{}, noRoot
	}
	if _, err := os.Stat(rp.LedgerDir(binary)); err != nil {
		return spec.Root{}, noRoot
	}
	return spec.Root{Dir: rp.Root, Bound: rp.Root}, nil
}
