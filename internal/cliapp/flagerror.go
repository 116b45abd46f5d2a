package cliapp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// FlagError is a flag on a command line that its command does not
// define (Err is ErrFlagNotDefined), or one that takes a value given
// none (ErrFlagNeedsArgument). It reads
//
//	run: unknown flag --bogus (jj-kaisen run --help lists the flags)
//
// with the flag as it was typed (Go's flag package, under urfave/cli,
// says "flag provided but not defined: -bogus" of a --bogus).
type FlagError struct {
	Command string // the command's path after the binary's name ("run", "review record"); "" for the binary's own flags
	Help    string // the command line whose --help lists the flags ("jj-kaisen run")
	Flag    string // as typed: "--bogus", "-x", "--max-cost"
	Suggest string // a defined flag near Flag, as it is written ("--json"), or ""
	Value   string // ErrFlagValue: the value refused
	Want    string // ErrFlagValue: what the flag takes ("a whole number"), else the parser's reason
	Err     error  // ErrFlagNotDefined, ErrFlagNeedsArgument or ErrFlagValue
}

func (e *FlagError) Error() string {
	var b strings.Builder
	if e.Command != "" {
		b.WriteString(e.Command + ": ")
	}
	switch e.Err {
	case ErrFlagNeedsArgument:
		fmt.Fprintf(&b, "flag %s needs a value", e.Flag)
	case ErrFlagValue:
		fmt.Fprintf(&b, "invalid value %q for %s: %s", e.Value, e.Flag, e.Want)
	default:
		fmt.Fprintf(&b, "unknown flag %s", e.Flag)
	}
	if e.Suggest != "" {
		fmt.Fprintf(&b, "; did you mean %s?", e.Suggest)
	}
	fmt.Fprintf(&b, " (%s --help lists the flags)", e.Help)
	return b.String()
}

func (e *FlagError) Unwrap() error { return e.Err }

// newFlagError is the FlagError of the flag typed in c's command line,
// wrapped in exit code 2 (usage).
func newFlagError(c *cli.Context, typed string, needsValue bool) error {
	e := &FlagError{Command: commandPath(c), Help: helpCommand(c), Flag: typed, Err: ErrFlagNotDefined}
	if needsValue {
		e.Err = ErrFlagNeedsArgument
	} else if c.Command != nil {
		var names []string
		for _, f := range c.Command.Flags {
			names = append(names, f.Names()...)
		}
		name, _, _ := strings.Cut(strings.TrimLeft(typed, "-"), "=")
		if s := closest(name, names); s != "" {
			e.Suggest = dashed(s)
		}
	}
	return exitcode.Wrap(exitcode.Usage, e)
}

// dashed is flag name as it is written: -R, --json.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// UsageError is what a command line urfave/cli's flag parser refused
// with err becomes: the FlagError of the flag the parser stopped at
// when it is one the command does not define or one without its value,
// else err; exit 2 either way. It is every command's OnUsageError; a
// command with an OnUsageError of its own calls it for what it does not
// handle.
func UsageError(c *cli.Context, err error) error {
	if c.Command != nil {
		if typed, needsValue, ok := flagFault(typedArgs(c), c.Command.Flags); ok {
			return newFlagError(c, typed, needsValue)
		}
		if value, name, reason, ok := parseValueError(err.Error()); ok {
			if f := findFlag(c.Command.Flags, name); f != nil {
				return newValueError(c, dashed(name), value, f, errors.New(reason))
			}
		}
	}
	return exitcode.Wrap(exitcode.Usage, err)
}

// parseValueError reads Go's flag package's refusal of a value,
// `invalid value "x" for flag -wave: parse error` (or `invalid boolean
// value …`), into its parts.
func parseValueError(msg string) (value, name, reason string, ok bool) {
	rest, found := strings.CutPrefix(msg, "invalid value ")
	if !found {
		if rest, found = strings.CutPrefix(msg, "invalid boolean value "); !found {
			return "", "", "", false
		}
	}
	for _, sep := range []string{" for flag -", " for -"} {
		if i := strings.LastIndex(rest, sep); i >= 0 {
			quoted, tail := rest[:i], rest[i+len(sep):]
			if value, err := strconv.Unquote(quoted); err == nil {
				name, reason, ok = strings.Cut(tail, ": ")
				return value, name, reason, ok
			}
		}
	}
	return "", "", "", false
}

// newValueError is the FlagError of value refused by flag f (typed as
// typed), wrapped in exit code 2: what f takes, by its type, else the
// parser's reason.
func newValueError(c *cli.Context, typed, value string, f cli.Flag, err error) error {
	want := err.Error()
	switch f.(type) {
	case *cli.IntFlag, RequiredInt, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		want = "want a whole number"
		if strings.Contains(err.Error(), "out of range") {
			want = "out of range"
		}
	case *cli.Float64Flag:
		want = "want a number"
	case *cli.DurationFlag:
		want = "want a duration such as 90s, 5m or 1h30m"
	case *cli.BoolFlag:
		want = "want true or false"
	}
	return exitcode.Wrap(exitcode.Usage, &FlagError{Command: commandPath(c), Help: helpCommand(c),
		Flag: typed, Value: value, Want: want, Err: ErrFlagValue})
}

// argsKey holds, in cli.App.Metadata, the arguments after the binary's
// name: a command reads its own from its parent's context, but the
// app's context keeps none where OnUsageError can read them.
const argsKey = "cliapp.args"

// typedArgs are the arguments of c's command as they were typed, after
// its name.
func typedArgs(c *cli.Context) []string {
	if commandPath(c) == "" {
		args, _ := c.App.Metadata[argsKey].([]string)
		return args
	}
	lineage := c.Lineage()
	if len(lineage) < 2 || lineage[1] == nil {
		return nil
	}
	args := lineage[1].Args().Slice() // the command's name, then its arguments
	if len(args) == 0 {
		return nil
	}
	return args[1:]
}

// flagFault finds, in args, the flag Go's flag parser (under urfave/cli)
// stops at with an error, reading args as it does: flags until the
// first argument or "--", a flag of flags that takes a value taking the
// next argument unless written --name=value. typed is that flag as
// typed, without its "=value"; needsValue tells one that takes a value and was given none
// from one flags does not define. ok is false when every flag is one of
// flags with its value: the parser refused a value, and its own message
// says which.
func flagFault(args []string, flags []cli.Flag) (typed string, needsValue, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return "", false, false
		}
		flag, _, hasValue := strings.Cut(a, "=")
		f := findFlag(flags, strings.TrimPrefix(flag[1:], "-"))
		if f == nil {
			return flag, false, true
		}
		if hasValue || !takesValue(f) {
			continue
		}
		if i+1 == len(args) {
			return a, true, true
		}
		i++
	}
	return "", false, false
}
