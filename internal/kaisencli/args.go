package kaisencli

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// positional returns the command's positional arguments, applying any
// flags written after them ("jj kaisen plan PLAN --json"): urfave/cli stops
// parsing flags at the first argument. "--" ends flag parsing.
func positional(c *cli.Context) ([]string, error) {
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
		f := findFlag(c, name)
		if f == nil {
			return nil, exitcode.New(exitcode.Usage, "flag provided but not defined: %s", a)
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, exitcode.New(exitcode.Usage, "flag needs an argument: %s", a)
			}
			i++
			value = args[i]
		}
		if err := setFlag(c, name, value); err != nil {
			return nil, exitcode.New(exitcode.Usage, "invalid value %q for flag %s: %v", value, a, err)
		}
	}
	return pos, nil
}

func findFlag(c *cli.Context, name string) cli.Flag {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					return f
				}
			}
		}
	}
	return nil
}

func setFlag(c *cli.Context, name, value string) error {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					return ctx.Set(f.Names()[0], value)
				}
			}
		}
	}
	return nil
}
