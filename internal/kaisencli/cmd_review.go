package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

func reviewCommand() *cli.Command {
	return &cli.Command{
		Name:  "review",
		Usage: "step mode: record review verdicts",
		Subcommands: []*cli.Command{{
			Name:  "record",
			Usage: "record task N's review: --passed, or --findings FILE (JSON findings)",
			Description: `Records the verdict on a collected task. --findings reads a JSON array of
{"severity": critical|important|suggestion|cannot-verify, "message", "file",
"line"}; critical or important findings fail the review and record the fix's
starting commit, so the re-review can be scoped to exactly the fix delta
(printed); with --json, "job" is the fixer job the driver would run (start it
as fan-out's jobs). Record --passed once the fix is approved.`,
			Flags: []cli.Flag{
				cliapp.RequiredInt{IntFlag: &cli.IntFlag{Name: "task", Usage: "the task `N`"}},
				&cli.BoolFlag{Name: "passed", Usage: "the task passed review"},
				&cli.StringFlag{Name: "findings", Usage: "the reviewer's findings `FILE`"},
			},
			Action: func(c *cli.Context) error {
				n := c.Int("task")
				if n <= 0 {
					return exitcode.New(exitcode.Usage, "--task N is required")
				}
				if c.Bool("passed") == (c.String("findings") != "") {
					return exitcode.New(exitcode.Usage, "give exactly one of --passed or --findings FILE")
				}
				r, err := stepRunner(c)
				if err != nil {
					return err
				}
				defer r.Close()
				v, err := r.RecordReview(c.Context, n, c.Bool("passed"), c.String("findings"))
				if err != nil {
					return err
				}
				return cliapp.Emit(c, v, func(out io.Writer) error {
					if v.Passed {
						_, err := fmt.Fprintf(out, "task %d: review passed\n", n)
						return err
					}
					_, err := fmt.Fprintf(out, "task %d: review failed (%d critical, %d important); fix in %s, re-review the delta: %s\n", n, v.Critical, v.Important, v.Workspace, v.Delta)
					return err
				})
			},
		}},
	}
}
