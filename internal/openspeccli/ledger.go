package openspeccli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

// binary names jj-openspec's ledger directory.
const binary = specwrite.Binary

// changeVerb is what archive, rebase and sync parse before they call
// their workflow (which takes the project lock): the one CHANGE
// argument, --dry-run (read after oneChange, which takes flags that
// follow the argument) and the project, its config warnings printed.
func changeVerb(c *cli.Context) (name string, r spec.Root, dry bool, err error) {
	if name, err = oneChange(c); err != nil {
		return
	}
	dry = c.Bool("dry-run")
	if r, err = openRoot(c); err != nil {
		return
	}
	err = warnConfig(c, r)
	return
}

// withRecovery makes every command (subcommands too) first finish an
// interrupted archive (specwrite.Recover).
func withRecovery(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		if act := cmd.Action; act != nil {
			cmd.Action = func(c *cli.Context) error {
				if r, err := openRoot(c); err == nil { // else the command reports it
					if err := specwrite.Recover(r, cliapp.Stderr(c)); err != nil {
						return err
					}
				}
				return act(c)
			}
		}
		withRecovery(cmd.Subcommands)
	}
	return cmds
}
