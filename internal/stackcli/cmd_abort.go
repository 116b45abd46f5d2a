package stackcli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
	"github.com/specstack/specstack/stack/ghapi"
)

func abortCommand() *cli.Command {
	return &cli.Command{
		Name:  "abort",
		Usage: "end the unfinished run for good: its workspaces removed, its unpublished work kept, its Actions jobs cancelled, its pull requests left",
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
is cancelled first and its specstack/JOB/base branch deleted (GitHub is
reached only then); a result it pushed stays on origin as
specstack/JOB/result and is named. A job that could not be cancelled
(GitHub unreachable) is named, the run aborted here all the same, exit 1.
No run, or a finalized one, is a usage error (exit 2).`,
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
			dial := func(ctx context.Context) (*ghapi.Client, error) {
				gh, err := stack.Dial(ctx, vcs, stack.ConnectOptions{Timeout: s.timeout})
				return gh, githubExit(err)
			}
			res, err := stack.Abort(c.Context, &stack.Env{VCS: vcs}, opts, dial)
			if res != nil { // aborted, perhaps with jobs left on GitHub Actions (err)
				if eerr := cliapp.Emit(c, res, res.WriteText); eerr != nil && err == nil {
					err = eerr
				}
			}
			return err
		},
	}
}
