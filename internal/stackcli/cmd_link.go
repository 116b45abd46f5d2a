package stackcli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
)

func linkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "make branches (or jj bookmarks) a stack of draft pull requests, bottom to top",
		ArgsUsage: "BRANCH-OR-PR...",
		Description: `Lists the stack bottom first: branch names (bookmarks in a jj repository), pull
request numbers or URLs. For each branch origin does not have yet, link pushes
it (in jj through "jj git push -b"), once: a branch origin already has at
another commit is refused before anything changes, and nothing is ever
force-pushed. Each branch's open pull request is reused, or a draft one opened
whose base is the branch below (--base, default the default branch, for the
bottom); a pull request with the wrong base is fixed. With stacked pull
requests enabled, the stack is registered natively: created from two layers,
extended on top when it exists. Without them, link builds the --base chain
only and prints how to merge it. It never marks a pull request ready, and run
again with the same list it changes nothing and says so.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "base branch of the bottom pull request (default: the repository's default branch)"},
			stackModeFlag,
		},
		Action: func(c *cli.Context) error {
			items, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(items) == 0 {
				return exitcode.New(exitcode.Usage, "link: name the branches or pull requests of the stack, bottom first")
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			dir, err := ledgerDir(c)
			if err != nil {
				return err
			}
			res, err := stack.Link(c.Context, env, stack.LinkRequest{Items: items, Base: c.String("base"), StackMode: s.stackMode, LedgerDir: dir}, cliapp.Stderr(c))
			if err != nil {
				return err
			}
			return cliapp.Emit(c, res, res.WriteText)
		},
	}
}
