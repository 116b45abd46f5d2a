package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "release the run's workspaces that are no longer needed (failed ones too with --all)",
		Description: `Forgets and removes the workspaces of squashed tasks and of tasks whose
edits leaked into @. Workspaces of failed or blocked tasks are preserved for
inspection unless --all is given, which also releases the workspaces earlier
runs of the ledger kept (a change holding work stays in jj log).`,
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
