package kaisencli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:         "run",
		Usage:        "run a plan's tasks in waves of jj workspaces, review, squash into @ smallest-first, gate",
		ArgsUsage:    "PLAN",
		BashComplete: cliapp.CompleteSuffix(".md"),
		Description: `Driver mode: the whole workflow in one command. Checks the prerequisites,
records the run in the ledger (plan, parent change, start operation, baseline
diff of @), then per wave: provisions one workspace per task (wave 1 on @-,
later waves on @), writes briefs, runs the worker command in each workspace
(stdin closed; SPECSTACK_WORKSPACE, SPECSTACK_BRIEF, SPECSTACK_REPORT,
SPECSTACK_TASK, SPECSTACK_ROLE and, from wave 2, SPECSTACK_PRIOR_WAVES),
collects each change from the workspace's revset, checks that @ did not change
(integrity), runs the covering tests in each workspace and the reviewer
(findings to SPECSTACK_FINDINGS: critical, important, suggestion,
cannot-verify), fixes with at most two attempts, and squashes approved tasks
into @ smallest diff first. After the last wave the full test command runs
once in @; then workspaces are released and the plan-coverage report printed:
per task merged, empty (its change was empty), failed, blocked or leaked, with
"review passed" only when a reviewer ran and passed ("review skipped" with
--skip-review or no reviewer) and "no test ran" when no test covered it.

Exit status: 0 when every task was merged (or empty); 9 when the run completed
with a task not merged, naming each and why (its workspace is kept); 8 when
the final gate is red; 3 when another process holds the ledger lock (a live
run: the message names its pid); 5 when an unfinished run nobody drives is in
the ledger. Overlaps, low parallelism, and the pre-flight findings that may
mean the plan is not what its author meant (near-heading: a line that looks
like a task heading but is not one; no-files; unread-files) need --yes (else
exit 5, the wave plan and findings printed). A killed run continues
with "resume"; "abort" undoes it.`,
		Flags: runFlags(),
		Action: func(c *cli.Context) error {
			r, err := startRun(c, true)
			if err != nil || r == nil {
				return err
			}
			defer r.Close()
			r.ConfidenceOverride = c.String("confidence-override")
			return finish(c, r, drive(c, r))
		},
	}
}

func startCommand() *cli.Command {
	return &cli.Command{
		Name:         "start",
		Usage:        "step mode: check prerequisites, record the run and write briefs; starts no worker",
		ArgsUsage:    "PLAN",
		BashComplete: cliapp.CompleteSuffix(".md"),
		Description: `Step mode, for an agent that dispatches its own subagents: does what "run"
does before the first wave (prerequisites, ledger header, briefs) and prints
the wave plan. Continue with fan-out, collect, review record, fan-in and
gate, or hand the run to the driver with "resume".`,
		Flags: runFlags(),
		Action: func(c *cli.Context) error {
			r, err := startRun(c, false)
			if err != nil || r == nil {
				return err
			}
			defer r.Close()
			return emitStatus(c, r.Doc, r.Dir)
		},
	}
}

// startRun reads the plan, asks for a decision when needed and starts
// the run. A nil runner with a nil error means the command already
// answered (a declined prompt).
func startRun(c *cli.Context, needWorker bool) (*engine.Runner, error) {
	args, err := cliapp.Args(c)
	if err != nil {
		return nil, err
	}
	if len(args) > 1 {
		return nil, exitcode.New(exitcode.Usage, "%s takes one PLAN file, got %d arguments", c.Command.Name, len(args))
	}
	p, label, err := loadPlan(first(args), c.StringSlice("task"))
	if err != nil {
		return nil, err
	}
	if v := c.String("only"); v != "" {
		if p, err = onlyTasks(p, v); err != nil {
			return nil, err
		}
	}
	s, err := openSession(c)
	if err != nil {
		return nil, err
	}
	// The ledger lock first: a live run makes this one fail at once.
	res, err := engine.Reserve(s.dir, c.Bool("fresh"))
	if err != nil {
		return nil, err
	}
	defer res.Release() // a no-op once the run started
	// Then the prerequisites, each failure with its fix.
	ws, at, err := engine.Prerequisites(c.Context, s.repo)
	if err != nil {
		return nil, err
	}
	tasks := engine.PlanTasks(p)
	opts, err := s.options(c, tasks)
	if err != nil {
		return nil, err
	}
	if _, err := heartbeat(c, s.cfg); err != nil {
		return nil, err
	}
	if needWorker && opts.Executor == "" {
		if err := engine.NeedWorker(opts.Worker, s.repo.Root); err != nil {
			return nil, err
		}
	}
	if needWorker {
		if err := engine.NeedReviewer(opts.Reviewer, s.repo.Root); err != nil {
			return nil, err
		}
	}
	// A remote executor reaches GitHub before anything is made.
	ex, err := connectExecutor(c.Context, s.repo, s.dir, opts)
	if err != nil {
		return nil, err
	}
	if err := engine.CheckTestsStart(c.Context, s.repo.Root, opts); err != nil {
		return nil, err
	}
	v, err := engine.BuildPlanView(c.Context, p, label, s.repo)
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, f := range v.Findings {
		warnings = append(warnings, f.Message)
		fmt.Fprintf(cliapp.Stderr(c), "pre-flight: %s\n", f.Message)
	}
	if v.NeedsDecision() && !c.Bool("yes") {
		if cliapp.CanPrompt(c) {
			v.Text(cliapp.Stderr(c))
			ok, err := cliapp.Confirm(c, "Proceed with this wave plan?")
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, exitcode.New(exitcode.NeedsChoice, "wave plan declined: restructure the plan, or re-run with --yes")
			}
		} else {
			if err := cliapp.Emit(c, v, v.Text); err != nil {
				return nil, err
			}
			return nil, exitcode.New(exitcode.NeedsChoice, "%s: review the wave plan above, then re-run with --yes to proceed", v.Why())
		}
	}
	briefs := map[int]string{}
	for _, t := range p.Tasks {
		b, err := p.Brief(t.Number)
		if err != nil {
			return nil, err
		}
		briefs[t.Number] = b
	}
	r, err := res.Start(c.Context, s.repo, engine.StartRequest{
		Binary: binary, Plan: label, Tasks: tasks, Waves: v.Waves, Briefs: briefs,
		Options: opts, Fresh: c.Bool("fresh"), Warnings: warnings,
		Checked: &engine.Checked{Workspace: ws, At: at},
	}, cliapp.Stderr(c))
	if err != nil {
		return nil, err
	}
	r.Executor = ex
	if err := showProgress(c, s.cfg, r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// finish prints the coverage report and returns the run's error.
func finish(c *cli.Context, r *engine.Runner, err error) error {
	cov := r.Report()
	cov.Settle(r.Dir, engine.KaisenCommands) // this driver ends here
	if eerr := cliapp.Emit(c, cov, cov.Text); eerr != nil && err == nil {
		err = eerr
	}
	return err
}

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name:  "resume",
		Usage: "continue the unfinished run from the ledger, never redoing finished work",
		Description: `Continues the run in the ledger in driver mode, from wherever it stopped:
a killed run, a halted one after a person dealt with the cause, or a run
driven so far in step mode. Squashed tasks are never run again; a worker a
killed run left behind is stopped, and its task collected from its report
or started again in the same workspace. Clears nothing.

--worker, --reviewer and --test replace the recorded commands for the rest
of the run and are recorded, so a later resume keeps them (a plain resume
uses the run's). --rebaseline accepts @ as it is now after a failed
integrity check. Exits as
"run" does: 9 when the run completes with a task not merged, naming each and
why.`,
		Flags: append(overrideFlags(), &cli.BoolFlag{Name: "rebaseline", Usage: "accept @ as it is now as the integrity baseline"}, heartbeatFlag),
		Action: func(c *cli.Context) error {
			s, err := openSession(c)
			if err != nil {
				return err
			}
			r, err := s.open(c)
			if err != nil {
				return err
			}
			defer r.Close()
			st := r.State()
			if st.Complete {
				return exitcode.New(exitcode.Usage, "run %s is complete: nothing to resume (start a new run)", r.Doc.Header.RunID)
			}
			o := r.Doc.Header.Options
			o.Worker = pick(r.Worker, o.Worker)
			if r.Executor, err = connectExecutor(c.Context, s.repo, s.dir, o); err != nil {
				return err
			}
			if st.Aborted {
				return exitcode.New(exitcode.Usage, "run %s was aborted: nothing to resume (start a new run)", r.Doc.Header.RunID)
			}
			// Refused before anything is recorded; written with the
			// first event recorded below.
			took, err := r.TakeCommands(r.Worker, r.Reviewer, r.Test)
			if err != nil {
				return err
			}
			if c.Bool("rebaseline") {
				if err := r.Rebaseline(c.Context); err != nil {
					return err
				}
			}
			if err := r.CheckTestsStart(c.Context); err != nil {
				return err
			}
			if err := r.Resume(); err != nil { // records the header with took
				return err
			}
			if len(took) > 0 {
				fmt.Fprintf(cliapp.Stderr(c), "resume: run %s goes on with %s (recorded: a later resume keeps it)\n", r.Doc.Header.RunID, strings.Join(took, ", "))
			}
			return finish(c, r, drive(c, r))
		},
	}
}

func emitStatus(c *cli.Context, d *engine.Doc, dir string) error {
	cov := engine.BuildCoverage(d, engine.ArtifactsDir(dir))
	return cliapp.Emit(c, cov, func(w io.Writer) error {
		if err := cov.Text(w); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "ledger: %s\n", engine.LedgerPath(dir))
		return err
	})
}
