package openspeccli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
)

func cliCommand() *cli.Command {
	return &cli.Command{
		Name:      "cli",
		Usage:     "run the real OpenSpec CLI in the project root, known-harmless warnings filtered",
		ArgsUsage: "-- OPENSPEC-ARGS...",
		Description: `Runs "openspec OPENSPEC-ARGS..." (the @fission-ai/openspec CLI, for verbs
jj-openspec does not implement natively) in the OpenSpec project root, with
telemetry and update checks off and stdin closed. Its stdout passes through;
of its stderr only the allow-listed harmless lines are dropped ("Rules for
'tasks' must be an array", "Unknown artifact ID in rules"); its exit code is
returned unchanged. Exits 7 when openspec is not on PATH.

Example: jj openspec cli -- show add-export --json`,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			if len(args) == 0 {
				return exitcode.New(exitcode.Usage, "cli: give the openspec arguments, e.g. `jj-openspec cli -- list --specs`")
			}
			r, err := openRoot(c)
			if err != nil {
				return err
			}
			res, err := openspec.Run(c.Context, openspec.Cmd{Args: args, Dir: r.Dir, Stdout: c.App.Writer, Stderr: cliapp.Stderr(c)})
			if err != nil {
				return err
			}
			return cliapp.Silent(exitcode.Code(res.ExitCode))
		},
	}
}
