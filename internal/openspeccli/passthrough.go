package openspeccli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
)

// openspecVerbs are the verbs of the OpenSpec CLI 1.13.2 jj-openspec does
// not implement (show and instructions are partly native: showCommand,
// instructionsCommand): each runs the real CLI (passThrough). OpenSpec's
// `doctor` and `completion` are not here: jj-openspec's own verbs of those
// names win, and `jj-openspec cli -- doctor` (completion) reaches
// OpenSpec's. `new change NAME` is OpenSpec's (openSpecNewChange).
var openspecVerbs = []string{"view", "update", "change", "spec", "config", "schema", "schemas", "store", "context", "workset", "templates", "feedback"}

// passThroughCommands are openspecVerbs as commands that hand their whole
// invocation to the real CLI.
func passThroughCommands() []*cli.Command {
	var out []*cli.Command
	for _, v := range openspecVerbs {
		out = append(out, &cli.Command{
			Name:      v,
			Usage:     fmt.Sprintf("OpenSpec's %s, run by the real OpenSpec CLI (see cli)", v),
			ArgsUsage: "[OPENSPEC-ARGS...]",
			Description: fmt.Sprintf(`Runs "openspec %s OPENSPEC-ARGS..." (the real @fission-ai/openspec CLI,
which must be on PATH) in the current directory (or --repo DIR), as cli
does: telemetry and update checks off, stdin closed, the harmless warnings
dropped, its stdout, stderr and exit code passed on. OpenSpec's own help:
"jj-openspec %s -- --help".`, v, v),
			SkipFlagParsing: true,
			Action: func(c *cli.Context) error {
				if a := c.Args().Slice(); len(a) == 1 && (a[0] == "--help" || a[0] == "-h") {
					return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name) // OpenSpec's: `jj-openspec VERB -- --help`
				}
				return passThrough(c, append([]string{c.Command.Name}, c.Args().Slice()...))
			},
		})
	}
	return out
}

// passThrough runs the real OpenSpec CLI with args in --repo DIR or the
// current directory (OpenSpec finds its root from there, as it would
// itself), its stdout and filtered stderr passed on and its exit code
// kept. No CLI on PATH is exit 7 with how to install it.
func passThrough(c *cli.Context, args []string) error {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	res, err := openspec.Run(c.Context, openspec.Cmd{Args: args, Dir: dir, Stdout: c.App.Writer, Stderr: cliapp.Stderr(c)})
	if err != nil {
		return err
	}
	return cliapp.Silent(exitcode.Code(res.ExitCode))
}

// fallBackOnUnknownFlags makes each OpenSpec verb in cmds hand an
// invocation with a flag it does not define (OpenSpec's rarer flags:
// init --tools, --store, validate --report, …), or a flag missing its
// value, to the real CLI whole (which answers in commander's words),
// instead of failing with "flag provided but not defined". Each must
// read its arguments (cliapp.Args) before doing anything else.
func fallBackOnUnknownFlags(cmds []*cli.Command, verbs ...string) {
	for _, cmd := range cmds {
		for _, v := range verbs {
			if cmd.Name != v {
				continue
			}
			cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
				if !strings.Contains(err.Error(), "flag provided but not defined") && !strings.Contains(err.Error(), "flag needs an argument") {
					return exitcode.Wrap(exitcode.Usage, err)
				}
				return passThrough(c, invocation(c))
			}
			// A flag after the arguments (`archive CHANGE --no-validate`)
			// is met by cliapp.Args, which each of these calls first.
			act := cmd.Action
			cmd.Action = func(c *cli.Context) error {
				err := act(c)
				if errors.Is(err, cliapp.ErrFlagNotDefined) || errors.Is(err, cliapp.ErrFlagNeedsArgument) {
					return passThrough(c, invocation(c))
				}
				return err
			}
		}
	}
}

// invocation is the verb and its arguments as typed, unparsed: the
// arguments the app context handed to the command.
func invocation(c *cli.Context) []string {
	lin := c.Lineage()
	if len(lin) < 2 {
		return c.Args().Slice()
	}
	return lin[1].Args().Slice()
}
