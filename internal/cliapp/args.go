package cliapp

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// Args returns the command's positional arguments after applying flags
// written among or after them ("archive CHANGE --yes", "plan 12 --json"):
// urfave/cli stops parsing flags at the first argument. Flags found there
// are set on the context that defines them, so c.String and JSON see them.
// "--" ends flag parsing; "-" is an argument.
func Args(c *cli.Context) ([]string, error) {
	var pos []string
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		ctx, f := lookupFlag(c, name)
		if f == nil {
			return nil, exitcode.New(exitcode.Usage, "%s: flag provided but not defined: %s", c.Command.Name, a)
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, exitcode.New(exitcode.Usage, "%s: flag needs an argument: %s", c.Command.Name, a)
			}
			i++
			value = args[i]
		}
		if err := ctx.Set(f.Names()[0], value); err != nil {
			return nil, exitcode.New(exitcode.Usage, "%s: invalid value %q for flag %s: %v", c.Command.Name, value, a, err)
		}
	}
	return pos, nil
}

// lookupFlag finds the innermost command context defining flag name.
func lookupFlag(c *cli.Context, name string) (*cli.Context, cli.Flag) {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					return ctx, f
				}
			}
		}
	}
	return nil, nil
}
