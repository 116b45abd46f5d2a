package stackcli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
)

func abortCommand() *cli.Command {
	return &cli.Command{
		Name:  "abort",
		Usage: "end the unfinished run for good: its workspaces removed, its unpublished work kept, GitHub left as it is",
		Description: `Ends the run recorded in the ledger, under the ledger lock (exit 3 while a
run drives it), for the next gh specstack run to start afresh: a worker a
killed run left running is stopped, and each workspace the run left (a
ticket's, the whole-stack review's, the baseline's) is removed. What an
unpublished one holds is kept first, never dropped: with git worktrees its
files are committed and the commit kept as branch ticket/N-kept-SHA beside
ticket/N; with jj workspaces the files are snapshotted into the ticket's
commit, which stays in the log. The ledger records the run "aborted":
status says so, resume refuses it, and run moves its ledger aside as it
does a finished run's.

Nothing on GitHub changes: the branches pushed and pull requests opened
stay as they are, and are listed. A new run of the same spec stops at each
ticket/N branch on origin it did not push, so close those pull requests and
delete their branches first (gh pr close N --delete-branch) unless you mean
to keep them. A job an --executor github-actions run left on GitHub Actions
is not cancelled (no network is used); it is named, to cancel there. No run,
or a finalized one, is a usage error (exit 2).`,
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				return exitcode.New(exitcode.Usage, "abort takes no argument: it ends the run recorded in this repository's ledger (%q given)", args[0])
			}
			dir, err := cliapp.RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			s, err := loadSettings(c, dir)
			if err != nil {
				return err
			}
			vcs, err := stack.OpenVCS(c.Context, dir)
			if err != nil {
				return err
			}
			opts, err := driveOptions(c, s)
			if err != nil {
				return err
			}
			res, err := stack.Abort(c.Context, &stack.Env{VCS: vcs}, opts)
			if err != nil {
				return err
			}
			return cliapp.Emit(c, res, res.WriteText)
		},
	}
}
