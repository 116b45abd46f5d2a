package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:         "status",
		Usage:        "Display artifact completion status for a change: its artifacts, whether it is ready to apply and why, its task progress",
		ArgsUsage:    "CHANGE | --change NAME",
		BashComplete: completeChange,
		Description: `Reads the change against its workflow schema: the one its .openspec.yaml
names, else openspec/config.yaml's, else the built-in spec-driven (proposal,
specs, design, tasks; apply requires tasks). A project schema at
openspec/schemas/NAME/schema.yaml is read from disk. Prints each artifact as
present or missing (with what blocks it), whether apply is ready and why,
and the task progress OpenSpec counts.

"status --change NAME" is OpenSpec 1.13.2's status, natively: its text
("Progress: N/M artifacts complete", each artifact [x] done, [ ] ready, [-]
blocked, [~] skipped, and the Next: command) or with --json its document
(changeName, schemaName, planningHome, changeRoot, artifactPaths,
isComplete, applyRequires, nextSteps, actionContext, artifacts[].status,
root); its refusals ("Invalid change name", not found with the available
changes) exit 1. With no OpenSpec root here or above, the directory is
OpenSpec's implicit root. "status --all" likewise, for every active
change in OpenSpec's order ({changes, root} with --json; a change that
cannot be read carries its diagnostic in place, and the command exits 1).
No change and --schema run the real OpenSpec CLI.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "change", Usage: "OpenSpec's form: its status document and text for change `NAME`"},
			&cli.BoolFlag{Name: "all", Usage: "OpenSpec's status of every active change"},
			&cli.StringFlag{Name: "schema", Usage: "OpenSpec's schema override `NAME` (runs the real OpenSpec CLI)"},
		},
		Action: runStatus,
	}
}

func runStatus(c *cli.Context) error {
	if c.IsSet("change") || c.Bool("all") || c.IsSet("schema") || c.NArg() == 0 {
		if c.NArg() > 0 {
			return errStatusBoth
		}
		if c.IsSet("schema") || !c.IsSet("change") && !c.Bool("all") || c.IsSet("change") && c.Bool("all") {
			return passThrough(c, invocation(c))
		}
		return withOSRoot(c, true, func(r spec.Root) error {
			if c.Bool("all") {
				return runOSStatusAll(c, r)
			}
			return runOSStatus(c, r, c.String("change"))
		})
	}
	if args, err := cliapp.Args(c); err != nil {
		return err
	} else if len(args) > 1 { // OpenSpec's status takes none; one is jj-openspec's form
		return tooManyArgs(c, 0, len(args))
	}
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	if p := changeLookupProblem(name); p != "" {
		return exitcode.New(exitcode.Usage, "status: Invalid change name '%s': %s", name, p)
	}
	r, err := openRoot(c)
	if err != nil {
		return err
	}
	if err := warnConfig(c, r); err != nil {
		return err
	}
	st, err := r.Status(name)
	if err != nil {
		return classify(err)
	}
	return cliapp.Emit(c, st, func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "change: %s (schema %s)\n", st.Change, st.Schema)
		for _, a := range st.Artifacts {
			mark := "missing"
			switch {
			case a.Skipped:
				mark = "skipped"
			case a.Done:
				mark = "present"
			}
			fmt.Fprintf(&b, "  %-10s %-8s %s", a.ID, mark, a.Generates)
			if len(a.Blocked) > 0 && !a.Done {
				fmt.Fprintf(&b, " (needs %s)", strings.Join(a.Blocked, ", "))
			}
			b.WriteString("\n")
		}
		ready := "no"
		if st.ApplyReady {
			ready = "yes"
		}
		fmt.Fprintf(&b, "apply-ready: %s\n", ready)
		for _, why := range st.Why {
			fmt.Fprintf(&b, "  %s\n", why)
		}
		fmt.Fprintf(&b, "tasks: %s\n", st.Tasks)
		_, err := io.WriteString(w, b.String())
		return err
	})
}
