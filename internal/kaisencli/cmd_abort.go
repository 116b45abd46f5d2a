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
status then says "aborted" for the run and for every task the abort cut
short, started or not; a task that had finished keeps its outcome.
A run with --executor github-actions has its live runs cancelled and their
specstack/JOB/base branches deleted first; a result a finished run pushed
that the run never took stays on origin (specstack/JOB/result), named: it
is a worker's work, and no jj operation holds it. A run that cannot be
cancelled (GitHub unreachable) is named and abort exits 1 once the rest is
undone.

Aborting a complete run, a run whose @ holds edits made since the run last
recorded it (a person's edits, a conflict resolution), or a run during which
someone made changes elsewhere in the repository (which the restore would
hide), needs --yes: without it abort lists the tasks merged, the files
changed since and those changes, changes nothing and exits 5.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "abort even a complete run, or one whose @ or repository was edited since"}},
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
			if o := r.Doc.Header.Options; o.Executor != "" && !r.State().Aborted {
				// Without GitHub, abort still undoes the run here and
				// names the runs it could not cancel.
				if r.Executor, err = connectExecutor(c.Context, s.repo, s.dir, o); err != nil {
					fmt.Fprintf(cliapp.Stderr(c), "jj-kaisen: cannot reach the runs on GitHub Actions: %v\n", err)
				}
			}
			err = r.Abort(c.Context, c.Bool("yes"))
			if !r.State().Aborted {
				return err
			}
			cov := r.Report()
			if eerr := cliapp.Emit(c, cov, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "run %s aborted: restored to operation %s; artifacts kept in %s\n", cov.RunID, cov.StartOp, cov.Artifacts)
				return err
			}); eerr != nil {
				return eerr
			}
			return err
		},
	}
}
