package kaisencli

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// examplePlan is the commented plan `init` writes; a test checks that
// `plan` reads it with no finding.
//
//go:embed example-plan.md
var examplePlan string

// initCommand is a verb of its own rather than a `plan --example` flag:
// plan only reads, init writes a file for the user to edit, as `jj
// openspec init` lays out a spec tree.
func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "write a commented example plan to PLAN (default plan.md; - prints it)",
		ArgsUsage: "[PLAN]",
		Description: `Writes a commented example plan: a preamble, then three tasks with file
lists in the forms plan and run read, two of which share a file (so they run
in two waves). Edit it, check it with ` + "`jj kaisen plan PLAN`" + `, run it with
` + "`jj kaisen run PLAN --worker CMD`" + `. An existing PLAN is never overwritten
(exit 2: name another file). "-" prints the plan instead.`,
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) > 1 {
				return exitcode.New(exitcode.Usage, "init takes at most one PLAN file, got %d arguments", len(args))
			}
			path := "plan.md"
			if len(args) == 1 {
				path = args[0]
			}
			if path == "-" {
				_, err := fmt.Fprint(c.App.Writer, examplePlan)
				return err
			}
			// O_EXCL: a plan that exists, or appears meanwhile, is kept.
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				return exitcode.New(exitcode.Usage, "init: %s already exists: name another file (`jj kaisen init other.md`) or remove it", path)
			}
			if err != nil {
				return exitcode.New(exitcode.Failure, "init: create %s: %w", path, err)
			}
			if _, err := f.WriteString(examplePlan); err != nil {
				f.Close()
				os.Remove(path)
				return exitcode.New(exitcode.Failure, "init: write %s: %w", path, err)
			}
			if err := f.Close(); err != nil {
				os.Remove(path)
				return exitcode.New(exitcode.Failure, "init: write %s: %w", path, err)
			}
			fmt.Fprintf(cliapp.Stderr(c), "wrote an example plan to %s: edit it, then `jj kaisen plan %s`\n", path, path)
			return nil
		},
	}
}
