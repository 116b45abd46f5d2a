package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
)

// StatusView is `status --json`: one shape whether or not a run exists
// (run is null when the ledger holds none). The run lists its receipts.
type StatusView struct {
	LedgerDir string           `json:"ledger_dir"`
	Run       *engine.Coverage `json:"run"`
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the run in the ledger: per wave, per task, what became of it",
		Action: func(c *cli.Context) error {
			_, dir, err := findWorkspace(c)
			if err != nil {
				return err
			}
			d, ok, err := engine.Load(dir)
			if err != nil {
				return err
			}
			v := StatusView{LedgerDir: dir}
			if ok {
				v.Run = engine.BuildCoverage(d, engine.ArtifactsDir(dir))
			}
			return cliapp.Emit(c, v, func(w io.Writer) error {
				if v.Run == nil {
					_, err := fmt.Fprintf(w, "no run in the ledger (%s)\n", dir)
					return err
				}
				if err := v.Run.Text(w); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "ledger: %s\n", engine.LedgerPath(dir))
				return err
			})
		},
	}
}

func abortCommand() *cli.Command {
	return &cli.Command{
		Name:  "abort",
		Usage: "undo the whole run atomically: jj op restore to its start operation",
		Description: `Restores the repository to the operation recorded when the run started,
undoing every workspace, squash and abandon of the run at once (jj op log shows
the restore), removes the run's workspace directories and records the run as
aborted. Briefs, reports and logs are kept in the artifacts directory.

Aborting a complete run, or a run whose @ holds edits made since the run last
recorded it (a person's edits, a conflict resolution), needs --yes: without
it abort lists the tasks merged and the files changed since, changes nothing
and exits 5.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "abort even a complete run, or one whose @ was edited since"}},
		Action: func(c *cli.Context) error {
			r, err := openRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.Abort(c.Context, c.Bool("yes")); err != nil {
				return err
			}
			cov := r.Report()
			return cliapp.Emit(c, cov, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "run %s aborted: restored to operation %s; artifacts kept in %s\n", cov.RunID, cov.StartOp, cov.Artifacts)
				return err
			})
		},
	}
}

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "release the run's workspaces that are no longer needed (failed ones too with --all)",
		Description: `Forgets and removes the workspaces of squashed tasks and of tasks whose
edits leaked into @. Workspaces of failed or blocked tasks are preserved for
inspection unless --all is given.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "also release failed and blocked tasks' workspaces"}},
		Action: func(c *cli.Context) error {
			r, err := openRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if r.State().Aborted {
				return exitcode.New(exitcode.Usage, "run %s was aborted: its workspaces are already gone", r.Doc.Header.RunID)
			}
			if err := r.Sweep(c.Context, c.Bool("all")); err != nil {
				return err
			}
			cov := r.Report()
			return cliapp.Emit(c, map[string]any{"preserved_workspaces": cov.Preserved}, func(w io.Writer) error {
				if len(cov.Preserved) == 0 {
					_, err := fmt.Fprintln(w, "no workspaces left")
					return err
				}
				for _, p := range cov.Preserved {
					if _, err := fmt.Fprintf(w, "workspace preserved: %s\n", p); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}

func artifactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "artifacts",
		Usage: "print the artifacts directory (briefs, reports, logs, findings, prior-waves.md)",
		Action: func(c *cli.Context) error {
			s, err := openSession(c)
			if err != nil {
				return err
			}
			dir := engine.ArtifactsDir(s.dir)
			return cliapp.Emit(c, map[string]string{"artifacts": dir}, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, dir)
				return err
			})
		},
	}
}
