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

var waveFlag = &cli.IntFlag{Name: "wave", Usage: "the wave `N` (from 1)"}

// stepRunner opens the run for a step command and refuses finished runs.
func stepRunner(c *cli.Context) (*engine.Runner, error) {
	r, err := openRunner(c)
	if err != nil {
		return nil, err
	}
	if st := r.State(); st.Finished() {
		r.Close()
		return nil, exitcode.New(exitcode.Usage, "run %s is %s: start a new one", r.Doc.Header.RunID, map[bool]string{true: "complete", false: "aborted"}[st.Complete])
	}
	return r, nil
}

func fanOutCommand() *cli.Command {
	return &cli.Command{
		Name:  "fan-out",
		Usage: "step mode: provision wave N's workspaces and print, per task, workspace, path, brief, report and the worker job; starts nothing",
		Description: `Creates one workspace per task of the wave (wave 1 on @-, later waves on @)
and prints what a worker needs. With --json each task's "job" is exactly what
the driver would run: start "argv" (empty when no worker command is set: use
your own) in "dir" with the variables of "env" added to the environment, stdin
closed, output to "log". The worker must write "Status: DONE" (or
DONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT) to REPORT. Then run collect.`,
		Flags: []cli.Flag{waveFlag},
		Action: func(c *cli.Context) error {
			w, err := wave(c)
			if err != nil {
				return err
			}
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.CheckWaveReady(w); err != nil {
				return err
			}
			if err := r.Provision(c.Context, w); err != nil {
				return err
			}
			views, err := r.WaveJobs(w)
			if err != nil {
				return err
			}
			return cliapp.Emit(c, views, func(out io.Writer) error {
				for _, v := range views {
					if _, err := fmt.Fprintf(out, "task %d: workspace %s\n  path:   %s\n  brief:  %s\n  report: %s\n", v.Task, v.Workspace, v.Path, v.Brief, v.Report); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}

func collectCommand() *cli.Command {
	return &cli.Command{
		Name:  "collect",
		Usage: "step mode: read wave N's results (change, files, status) and run the integrity check",
		Description: `Reads each provisioned task of the wave: its change from the workspace's own
revset (recovered by its "Task N:" description when the workspace is gone),
the files it touched, and the status from its report. Then checks that @ did
not change against the baseline; a leak halts the run (exit 9). Collecting
again after a fix re-reads the task.`,
		Flags: []cli.Flag{waveFlag},
		Action: func(c *cli.Context) error {
			w, err := wave(c)
			if err != nil {
				return err
			}
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.CollectWave(c.Context, w); err != nil {
				return err
			}
			ierr := r.Integrity(c.Context, w)
			cov := r.Report()
			if err := cliapp.Emit(c, cov.Waves[w-1], func(out io.Writer) error { return waveText(out, cov.Waves[w-1]) }); err != nil {
				return err
			}
			return ierr
		},
	}
}

func waveText(w io.Writer, wv engine.WaveCoverage) error {
	for _, t := range wv.Tasks {
		line := fmt.Sprintf("task %d: %s", t.Task, t.Outcome)
		if t.Status != "" {
			line += " (" + t.Status + ")"
		}
		if t.Change != "" {
			line += " change " + t.Change
		}
		if len(t.Files) > 0 {
			line += " files " + strings.Join(t.Files, ",")
		}
		if t.Why != "" {
			line += " — " + t.Why
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

func reviewCommand() *cli.Command {
	return &cli.Command{
		Name:  "review",
		Usage: "step mode: record review verdicts",
		Subcommands: []*cli.Command{{
			Name:  "record",
			Usage: "record task N's review: --passed, or --findings FILE (JSON findings)",
			Description: `Records the verdict on a collected task. --findings reads a JSON array of
{"severity": critical|important|suggestion|cannot-verify, "message", "file",
"line"}; critical or important findings fail the review and record the fix's
starting commit, so the re-review can be scoped to exactly the fix delta
(printed); with --json, "job" is the fixer job the driver would run (start it
as fan-out's jobs). Record --passed once the fix is approved.`,
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "task", Usage: "the task `N`"},
				&cli.BoolFlag{Name: "passed", Usage: "the task passed review"},
				&cli.StringFlag{Name: "findings", Usage: "the reviewer's findings `FILE`"},
			},
			Action: func(c *cli.Context) error {
				n := c.Int("task")
				if n <= 0 {
					return exitcode.New(exitcode.Usage, "--task N is required")
				}
				if c.Bool("passed") == (c.String("findings") != "") {
					return exitcode.New(exitcode.Usage, "give exactly one of --passed or --findings FILE")
				}
				r, err := stepRunner(c)
				if err != nil {
					return err
				}
				defer r.Close()
				v, err := r.RecordReview(c.Context, n, c.Bool("passed"), c.String("findings"))
				if err != nil {
					return err
				}
				return cliapp.Emit(c, v, func(out io.Writer) error {
					if v.Passed {
						_, err := fmt.Fprintf(out, "task %d: review passed\n", n)
						return err
					}
					_, err := fmt.Fprintf(out, "task %d: review failed (%d critical, %d important); fix in %s, re-review the delta: %s\n", n, v.Critical, v.Important, v.Workspace, v.Delta)
					return err
				})
			},
		}},
	}
}

func fanInCommand() *cli.Command {
	return &cli.Command{
		Name:  "fan-in",
		Usage: "step mode: squash wave N's approved tasks into @, smallest diff first",
		Description: `Releases approved tasks' workspaces and squashes their changes into @ (in
the run's merge order, else smallest diff first), checking conflicts() after
each: tasks.md conflicts are reconciled, others halt with exit 4 naming the
files. Every collected task needs a verdict first (review record), unless the
run skips review.`,
		Flags: []cli.Flag{waveFlag},
		Action: func(c *cli.Context) error {
			w, err := wave(c)
			if err != nil {
				return err
			}
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.CheckWaveReady(w); err != nil {
				return err
			}
			if err := r.CheckReviewed(w); err != nil {
				return err
			}
			if r.Doc.Header.Options.SkipReview {
				if err := r.Review(c.Context, w); err != nil { // records the skipped reviews
					return err
				}
			}
			err = r.FanIn(c.Context, w)
			cov := r.Report()
			if eerr := cliapp.Emit(c, cov.Waves[w-1], func(out io.Writer) error { return waveText(out, cov.Waves[w-1]) }); eerr != nil && err == nil {
				err = eerr
			}
			return err
		},
	}
}

func gateCommand() *cli.Command {
	return &cli.Command{
		Name:  "gate",
		Usage: "run the full test command once in @; green (or no command) completes the run",
		Description: `The combined-result gate: after the last wave's fan-in, runs the full test
command in @. Red exits 8 and the run stays incomplete; with no test command
the run completes and says that no automated check ran. A run that completes
with a task not merged exits 9, naming each and why.`,
		Flags: overrideFlags(),
		Action: func(c *cli.Context) error {
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			err = r.Gate(c.Context)
			if err == nil {
				err = r.Complete(c.Context)
			}
			return finish(c, r, err)
		},
	}
}
