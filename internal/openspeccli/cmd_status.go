package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:         "status",
		Usage:        "show a change's artifacts, whether it is ready to apply and why, and its task progress",
		ArgsUsage:    "CHANGE",
		BashComplete: completeChange,
		Description: `Reads the change against its workflow schema: the one its .openspec.yaml
names, else openspec/config.yaml's, else the built-in spec-driven (proposal,
specs, design, tasks; apply requires tasks). A project schema at
openspec/schemas/NAME/schema.yaml is read from disk. Prints each artifact as
present or missing (with what blocks it), whether apply is ready and why,
and the task progress OpenSpec counts.`,
		Action: runStatus,
	}
}

func runStatus(c *cli.Context) error {
	name, err := oneChange(c)
	if err != nil {
		return err
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
