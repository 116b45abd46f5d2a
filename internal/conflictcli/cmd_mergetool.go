package conflictcli

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/conflict"
	"github.com/specstack/specstack/internal/exitcode"
)

func mergeToolCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge-tool",
		Usage:     "resolve jj's $output file by a strategy (run by jj during resolve)",
		ArgsUsage: "BASE LEFT RIGHT OUTPUT",
		Hidden:    true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "strategy", Required: true},
			&cli.StringFlag{Name: "report"},
			&cli.StringFlag{Name: "path"},
			&cli.IntFlag{Name: "marker-length"},
			&cli.IntSliceFlag{Name: "hunk"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 4 {
				return exitcode.New(exitcode.Usage, "merge-tool takes BASE LEFT RIGHT OUTPUT, got %d arguments", c.NArg())
			}
			st, err := conflict.ParseStrategy(c.String("strategy"))
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			_, err = conflict.RunMergeTool(conflict.MergeToolRequest{
				Strategy: st, Hunks: c.IntSlice("hunk"), Output: c.Args().Get(3), Path: c.String("path"),
				Report: c.String("report"), MarkerLength: c.Int("marker-length"),
			})
			if errors.Is(err, conflict.ErrUnchanged) {
				return exitcode.Wrap(exitcode.Conflicts, err)
			}
			return err
		},
	}
}
