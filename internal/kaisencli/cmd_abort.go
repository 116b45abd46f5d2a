package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

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
