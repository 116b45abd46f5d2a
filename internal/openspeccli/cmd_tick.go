package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

func tickCommand(name string, checked bool) *cli.Command {
	verb := "tick (check)"
	if !checked {
		verb = "untick (clear)"
	}
	return &cli.Command{
		Name:         name,
		Usage:        verb + " tasks of a change by id, changing only their boxes",
		ArgsUsage:    "CHANGE ID...",
		BashComplete: completeChange,
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) < 2 {
				return exitcode.New(exitcode.Usage, "tasks %s: name a change and at least one task id, e.g. `jj-openspec tasks %s add-export 1.2`", name, name)
			}
			r, err := openRoot(c)
			if err != nil {
				return err
			}
			written, progress, err := specwrite.Tick(r, args[0], args[1:], checked)
			if err != nil {
				return err
			}
			out := struct {
				Change   string            `json:"change"`
				IDs      []string          `json:"ids"`
				Checked  bool              `json:"checked"`
				Written  []string          `json:"written"`
				Progress spec.TaskProgress `json:"progress"`
			}{args[0], args[1:], checked, []string{}, progress}
			for _, p := range written {
				out.Written = append(out.Written, relTo(r, p))
			}
			return cliapp.Emit(c, out, func(w io.Writer) error {
				state := "ticked"
				if !checked {
					state = "unticked"
				}
				if len(out.Written) == 0 { // each box was already so: nothing written
					_, err := fmt.Fprintf(w, "%s already %s in %s: %s\n", strings.Join(out.IDs, ", "), state, out.Change, out.Progress)
					return err
				}
				_, err := fmt.Fprintf(w, "%s %s in %s: %s\n", state, strings.Join(out.IDs, ", "), out.Change, out.Progress)
				return err
			})
		},
	}
}
