package cliapp

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"
)

// ErrFlagNotDefined is a FlagError's Err: a flag the command does not
// define.
var ErrFlagNotDefined = errors.New("flag provided but not defined")

// ErrFlagNeedsArgument is a FlagError's Err: a flag that takes a value,
// given none.
var ErrFlagNeedsArgument = errors.New("flag needs an argument")

// ErrFlagValue is a FlagError's Err: a value the flag cannot take.
var ErrFlagValue = errors.New("invalid flag value")

// Args returns the command's positional arguments after applying flags
// written among or after them ("archive CHANGE --yes", "plan 12 --json"):
// urfave/cli stops parsing flags at the first argument. Flags found there
// are set on the context that defines them, so c.String and JSON see them.
// "--" ends flag parsing, wherever it stands: everything after it is an
// argument, however it looks; "-" is an argument.
func Args(c *cli.Context) ([]string, error) {
	var pos []string
	args := c.Args().Slice()
	if stoppedAtDashes(c) {
		return args, nil
	}
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
			flag, _, _ := strings.Cut(a, "=")
			return nil, newFlagError(c, flag, false)
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, newFlagError(c, a, true)
			}
			i++
			value = args[i]
		}
		if err := ctx.Set(f.Names()[0], value); err != nil {
			flag, _, _ := strings.Cut(a, "=")
			return nil, newValueError(c, flag, value, f, err)
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

// stoppedAtDashes reports whether urfave/cli ended c's flags at a "--",
// which it drops: then every argument it left is positional. It reads
// the command's own arguments from the parent context, where they follow
// the command's name, and finds the "--" just before what urfave left
// (unless that "--" is the value of a flag).
func stoppedAtDashes(c *cli.Context) bool {
	lineage := c.Lineage()
	if len(lineage) < 2 || lineage[1] == nil || c.Command == nil {
		return false
	}
	raw := lineage[1].Args().Slice()
	if len(raw) == 0 || !c.Command.HasName(raw[0]) {
		return false
	}
	i := len(raw) - c.Args().Len() - 1 // the argument before those left
	if i < 1 || raw[i] != "--" {
		return false
	}
	if prev := raw[i-1]; i > 1 && strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
		if _, f := lookupFlag(c, strings.TrimLeft(prev, "-")); f != nil {
			if _, isBool := f.(*cli.BoolFlag); !isBool {
				return false // "--" is that flag's value
			}
		}
	}
	return true
}
