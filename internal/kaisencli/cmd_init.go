package kaisencli

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
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
(exit 2: name another file). "-" prints the plan instead. In a jj workspace
whose @ was blank (empty, no description) init describes @ "plan: PLAN (jj
kaisen init)" and says so, so that run can squash the tasks into it; an @
holding edits or a description of yours is left as it is.`,
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
			message := "plan: " + filepath.Base(path) + " (jj kaisen init)"
			described, err := jjx.WriteOnBlank(c.Context, filepath.Dir(path), message, func() error { return writePlan(path) })
			if err != nil {
				return err
			}
			fmt.Fprintf(cliapp.Stderr(c), "wrote an example plan to %s: edit it, then `jj kaisen plan %s`\n", path, path)
			if described != "" {
				// A run squashes into @ and refuses an undescribed one.
				fmt.Fprintf(cliapp.Stderr(c), "described @ %q: the plan is its change, and `jj kaisen run` squashes the tasks into it\n", message)
			}
			return nil
		},
	}
}

// writePlan writes the example plan to path, never over a file, and
// whole or not at all: the plan is written and synced under a temporary
// name beside path, then linked to path (a link fails on a name that
// exists, or appears meanwhile, so that file is kept). A kill leaves no
// plan, or the whole plan, and perhaps a dotted temporary file; never an
// empty plan.md that a re-run refuses to replace.
func writePlan(path string) error {
	exists := func() error {
		return exitcode.New(exitcode.Usage, "init: %s already exists: name another file (`jj kaisen init other.md`) or remove it", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return exists()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return exitcode.New(exitcode.Failure, "init: create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.WriteString(examplePlan)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return exitcode.New(exitcode.Failure, "init: write %s: %w", path, err)
	}
	engine.CrashPoint("kaisen-init-staged")
	err = os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return exists()
	}
	if err != nil {
		return exitcode.New(exitcode.Failure, "init: write %s: %w", path, err)
	}
	engine.CrashPoint("kaisen-init-linked")
	return nil
}
