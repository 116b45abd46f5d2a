package stackcli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/stack"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show how a spec issue's tickets stack up: mode, base, pinned base SHA and layers (read-only)",
		ArgsUsage: "SPEC-ISSUE",
		Description: `Reads the spec issue's open sub-issues and their blockers (GitHub's issue
dependencies first; a "Blocked by" section's #N references only where those
are empty) and prints them as layers in topological order, ties broken by the
spec's own order of sub-issues, then by number. Closed tickets are skipped; a
ticket labelled as needing a human is excluded with everything that depends on
it, and listed. A cycle is refused (exit 6) naming it, and so are tickets
without a "## Validation" section holding "### Run per change", and data that
makes no sense (a sub-issue or blocker without a number, a ticket blocked by
itself), every such ticket named.

The stack mode is native when the stacks API answers for the repository; when
it does not, plan stops (exit 5) and explains the choice: enable stacked pull
requests, or re-run with --stack-mode chain. The base is --base, else the
default branch when the checkout is on it; on any other branch plan stops
(exit 5) and asks for --base. The tickets' base SHA is pinned after fetching
origin: the full SHA of --start-ref (prior work; origin's branch, or the local
one when origin lacks it) or of the base. Nothing is changed anywhere.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "the branch the stack merges into (default: the default branch, when checked out)"},
			&cli.StringFlag{Name: "start-ref", Usage: "a branch carrying prior work for this spec: layer 0, what tickets are cut from"},
			stackModeFlag, humanLabelFlag,
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
			p, err := stack.MakePlan(c.Context, env, stack.PlanRequest{
				Spec: n, Base: c.String("base"), StartRef: c.String("start-ref"), StackMode: s.stackMode, HumanLabel: s.humanLabel,
			})
			if err != nil {
				return err
			}
			return cliapp.Emit(c, p, p.WriteText)
		},
	}
}
