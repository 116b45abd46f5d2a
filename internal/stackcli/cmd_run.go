package stackcli

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "build a spec issue's tickets with a worker, one git worktree each, and publish them one at a time as a stack of draft pull requests",
		ArgsUsage: "SPEC-ISSUE",
		Description: `Settles the run exactly as plan does (stack mode, base, pinned base SHA,
layers, tickets excluded for a human with their dependants, recipes) and
records it in the ledger ($(git rev-parse --git-common-dir)/specstack/gh-specstack/run.toml)
under the repository's lock before anything runs. On a terminal it shows the
plan and asks; otherwise --yes is required (exit 5 without it). --dry-run
prints the run it would do and writes nothing. An issue with no sub-issues
(a ticket's number given for its spec's) is refused, exit 2, before
anything is recorded or said on GitHub.

Prior work (--start-ref BRANCH): the branch is layer 0, pushed once when origin
lacks it, with its own draft pull request saying it carries work this run never
gated. The worker is first asked (role graph, SPECSTACK_FINISHED) which tickets
it already finishes, with evidence: those are closed by that pull request and
block nothing; the others are cut from it.

Baseline: in a worktree at the pinned base SHA every per-change command runs
once; its exit code (and the end of its output when it fails) is recorded. A
command that cannot start at all (exit 126 or 127 from sh) is an environment
blocker: the run halts before any ticket (exit 7) naming it.

Each ticket, in frontier order (sequential: one at a time by the spec's order
of sub-issues, then number; parallel: as soon as its blockers are published,
at most --max-parallel at once), gets a worktree on branch ticket/N cut from
the stack's published tip (the bottom from the pinned SHA), a brief file, and
the worker (role implementer) with the SPECSTACK_* variables every specstack
worker gets (in a jj repository the worktrees are git worktrees of jj's backing
git store). What it leaves uncommitted is committed. The ticket's per-change
commands then run on that commit, each leaving a receipt bound to the SHA; a
red command is waived only when it failed at the base too. A branch that does
not descend from its cut point (the worker rewound it) fails the ticket.

Publish lane, one ticket at a time: an origin branch ticket/N the run did not
push stops for a decision; when the tip moved since the ticket was cut (by
SHA) the branch is rebased onto it and validated again, else waived checks are
re-run; one push (never forced); a draft pull request based on the tip whose
body opens with "Layer k of N planned" and holds "Closes #N", "Validated green
at SHA by ROLE" and "Waived: COMMAND exited CODE"; the native stack registered
as it grows (created at the second layer, one add per layer). A branch that
adds nothing is recorded subsumed: no pull request, the spec stays open.

Whole-stack review (with --reviewer), after the last ticket: the at-review
commands the per-change set lacks are measured at the base in the background
while tickets are built, the union runs once
on the tip, and the reviewer (SPECSTACK_TASK=stack) reviews base...tip; its
blocking findings go to the worker as a fixer whose recipe is every per-change
command plus the at-review ones, and the fixes land as one integration pull
request (spec/N-integration) on top of the stack.

Finalize: the stack registration reconciled, every pull request marked ready,
and "Closes #SPEC" appended to the top pull request when the run is complete.
It fails closed: a ticket deferred to a human, one not published, a gate
finding nobody fixed, a review finding with no verdict or a whole-stack review
that never ran keeps the spec open; then nothing closes the spec, the top pull
request and the spec get a comment naming what remains, and the run ends
incomplete (exit 9). It never merges, and prints how to merge in the stack's
mode.

A ticket whose worker fails, whose commands stay red, or that needs a decision
halts the run (exit 9): nothing new starts and nothing more reaches GitHub.
gh specstack status shows where it is; gh specstack resume continues from the
ledger without redoing a published ticket or measuring the baseline again.
Interrupted (SIGINT, SIGTERM), the run stops its workers and exits 10 naming
the tickets in flight; gh specstack resume continues it the same way.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "worker", Usage: "the worker: an agent preset (claude, codex) or a `COMMAND` run by sh -c in each ticket's worktree (default: config worker.command)"},
			&cli.StringFlag{Name: "reviewer", Usage: "the reviewer of the gate: an agent preset or a `COMMAND` (default: config worker.reviewer; none: no gate)"},
			&cli.StringFlag{Name: "order", Value: stack.OrderSequential, Usage: "sequential (one ticket at a time, the tip never moves) or parallel"},
			&cli.IntFlag{Name: "max-parallel", Usage: "parallel order: at most `N` tickets at once (0: no bound)"},
			&cli.IntFlag{Name: "gate-max-rounds", Value: stack.DefaultGateMaxRounds, Usage: "review rounds per ticket before it publishes with what is unresolved"},
			&cli.StringFlag{Name: "timeout", Usage: "limit of each worker and command, a Go `DURATION` (default: config worker.timeout, else 1h)"},
			&cli.StringFlag{Name: "base", Usage: "the branch the stack merges into (default: the default branch, when checked out)"},
			&cli.StringFlag{Name: "start-ref", Usage: "a `BRANCH` carrying prior work for this spec: layer 0 with its own draft pull request, what tickets are cut from"},
			stackModeFlag, humanLabelFlag,
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "start without asking (required without a terminal)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "settle and print the run; change nothing"},
			maxCostFlag,
			&cli.StringFlag{Name: "executor", Usage: "where implementers and fixers run (reviewers run here): local (default, or [executor] kind) or github-actions (a runner per job, through .github/workflows/specstack-worker.yml; see workflow init)"},
		},
		Action: func(c *cli.Context) error {
			n, err := specArg(c)
			if err != nil {
				return err
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			req, err := runRequest(c, s, n)
			if err != nil {
				return err
			}
			opts, err := driveOptions(c, s)
			if err != nil {
				return err
			}
			so := stack.StartOptions{DryRun: c.Bool("dry-run"), Drive: opts}
			if !c.Bool("yes") {
				so.Confirm = func(p *stack.Plan) error { return confirm(c, p) }
			}
			p, st, err := stack.Start(c.Context, env, req, so)
			if so.DryRun && err == nil {
				return cliapp.Emit(c, p, p.WriteText)
			}
			return emitStatus(c, st, err)
		},
	}
}

// runRequest reads run's flags over the configuration.
func runRequest(c *cli.Context, s settings, spec int) (stack.RunRequest, error) {
	req := stack.RunRequest{
		Plan:   stack.PlanRequest{Spec: spec, Base: c.String("base"), StartRef: c.String("start-ref"), StackMode: s.stackMode, HumanLabel: s.humanLabel},
		Worker: s.cfg.Worker.Command, Reviewer: s.cfg.Worker.Reviewer, Order: c.String("order"),
		MaxParallel: c.Int("max-parallel"), GateMaxRounds: c.Int("gate-max-rounds"),
	}
	if c.IsSet("worker") {
		req.Worker = c.String("worker")
	}
	if c.IsSet("reviewer") {
		req.Reviewer = c.String("reviewer")
	}
	req.Executor = s.cfg.Executor.Kind
	if c.IsSet("executor") {
		req.Executor = c.String("executor")
	}
	if ex, _ := engine.ParseExecutor(req.Executor); ex != "" && !c.IsSet("max-parallel") {
		req.MaxParallel = s.cfg.Executor.MaxParallel
	}
	var err error
	if req.MaxCost, err = cliapp.MaxCost(c, s.cfg.Worker.MaxCost); err != nil {
		return req, err
	}
	t, from := s.cfg.Worker.Timeout, "config worker.timeout"
	if c.IsSet("timeout") {
		t, from = c.String("timeout"), "--timeout"
	}
	if t != "" {
		d, err := config.ParseTimeout(t)
		if err != nil {
			return req, exitcode.New(exitcode.Usage, "%s %q: %v", from, t, err)
		}
		req.Timeout = d
	}
	if req.Timeout == 0 {
		req.Timeout = time.Hour
	}
	return req, nil
}

// confirm shows the plan on a terminal and asks; without one, --yes is
// required.
func confirm(c *cli.Context, p *stack.Plan) error {
	if !cliapp.CanPrompt(c) {
		return exitcode.New(exitcode.NeedsChoice, "run starts workers and publishes pull requests: re-run with --yes (see the run first with --dry-run)")
	}
	if err := p.WriteText(cliapp.Stderr(c)); err != nil {
		return err
	}
	ok, err := cliapp.Confirm(c, "Start this run?")
	if err != nil {
		return err
	}
	if !ok {
		return exitcode.New(exitcode.NeedsChoice, "run declined: nothing was started")
	}
	return nil
}

// driveOptions are how run and resume drive the run: the ledger, the
// workspaces' folder, progress on stderr and --max-cost.
func driveOptions(c *cli.Context, s settings) (stack.DriveOptions, error) {
	dir, err := ledgerDir(c)
	if err != nil {
		return stack.DriveOptions{}, err
	}
	opts := stack.DriveOptions{LedgerDir: dir, WorkspacesDir: config.WorkspacesDir(s.cfg, s.root), Progress: cliapp.Stderr(c), Executor: s.cfg.Executor}
	opts.MaxCost, err = cliapp.MaxCost(c, 0)
	return opts, err
}

// emitStatus prints the run's status, when it started, and returns err.
func emitStatus(c *cli.Context, st *stack.RunStatus, err error) error {
	if st != nil {
		if eerr := cliapp.Emit(c, st, st.WriteText); eerr != nil && err == nil {
			err = eerr
		}
	}
	return err
}

var maxCostFlag = cliapp.MaxCostFlag("the run halts (exit 9) and resume --max-cost with more goes on")
