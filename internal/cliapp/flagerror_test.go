package cliapp_test

import (
	"errors"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// A flag the command does not define, or one given without its value,
// is a usage error (exit 2) naming the command and the flag as it was
// typed (Go's flag package says "flag provided but not defined: -bogus"
// of a --bogus), the nearest flag when one is near, and where the flags
// are listed; before the arguments (urfave/cli's parser) and after them
// (cliapp.Args) alike.
func TestFlagErrors(t *testing.T) {
	action := func(c *cli.Context) error {
		_, err := cliapp.Args(c)
		return err
	}
	flags := []cli.Flag{&cli.StringFlag{Name: "base"}, &cli.Float64Flag{Name: "max-cost"}, &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}},
		cliapp.RequiredInt{IntFlag: &cli.IntFlag{Name: "wave"}}, &cli.DurationFlag{Name: "every"}}
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{
		{Name: "run", Flags: flags, Action: action},
		{Name: "review", Subcommands: []*cli.Command{{Name: "record", Flags: flags, Action: action}}},
	}}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "--bogus"}, "tool: run: unknown flag --bogus (tool run --help lists the flags)"},
		{[]string{"run", "-bogus"}, "tool: run: unknown flag -bogus (tool run --help lists the flags)"},
		{[]string{"run", "--yes", "--bogus=3", "x"}, "tool: run: unknown flag --bogus (tool run --help lists the flags)"},
		{[]string{"run", "--base", "--bogus", "--jsn"}, "tool: run: unknown flag --jsn; did you mean --json? (tool run --help lists the flags)"},
		{[]string{"run", "-x"}, "tool: run: unknown flag -x (tool run --help lists the flags)"},
		{[]string{"run", "--max-cost"}, "tool: run: flag --max-cost needs a value (tool run --help lists the flags)"},
		{[]string{"run", "-y", "-base"}, "tool: run: flag -base needs a value (tool run --help lists the flags)"},
		{[]string{"review", "record", "--bogus"}, "tool: review record: unknown flag --bogus (tool review record --help lists the flags)"},
		{[]string{"--bogus", "run"}, "tool: unknown flag --bogus (tool --help lists the flags)"},
		{[]string{"-R"}, "tool: flag -R needs a value (tool --help lists the flags)"},
		// after the arguments, where cliapp.Args reads the flags
		{[]string{"run", "x", "--bogus=1"}, "tool: run: unknown flag --bogus (tool run --help lists the flags)"},
		{[]string{"run", "x", "--bsae", "main"}, "tool: run: unknown flag --bsae; did you mean --base? (tool run --help lists the flags)"},
		{[]string{"run", "x", "--base"}, "tool: run: flag --base needs a value (tool run --help lists the flags)"},
		{[]string{"review", "record", "x", "--bogus"}, "tool: review record: unknown flag --bogus (tool review record --help lists the flags)"},
		// a value the flag cannot take, said in the same words before
		// and after the arguments (Go's: `invalid value "x" for flag -wave: parse error`)
		{[]string{"run", "--wave", "x"}, `tool: run: invalid value "x" for --wave: want a whole number (tool run --help lists the flags)`},
		{[]string{"run", "x", "--wave=1.5"}, `tool: run: invalid value "1.5" for --wave: want a whole number (tool run --help lists the flags)`},
		{[]string{"run", "--wave", "99999999999999999999"}, `tool: run: invalid value "99999999999999999999" for --wave: out of range (tool run --help lists the flags)`},
		{[]string{"run", "--max-cost=abc"}, `tool: run: invalid value "abc" for --max-cost: want a number (tool run --help lists the flags)`},
		{[]string{"run", "x", "--max-cost", "abc"}, `tool: run: invalid value "abc" for --max-cost: want a number (tool run --help lists the flags)`},
		{[]string{"run", "--every", "5"}, `tool: run: invalid value "5" for --every: want a duration such as 90s, 5m or 1h30m (tool run --help lists the flags)`},
		{[]string{"run", "--yes=maybe"}, `tool: run: invalid value "maybe" for --yes: want true or false (tool run --help lists the flags)`},
		{[]string{"--json=maybe", "run"}, `tool: invalid value "maybe" for --json: want true or false (tool --help lists the flags)`},
		{[]string{"review", "record", "--wave", "a b"}, `tool: review record: invalid value "a b" for --wave: want a whole number (tool review record --help lists the flags)`},
	} {
		code, _, stderr := run(t, s, tc.args...)
		if code != int(exitcode.Usage) || stderr != tc.stderr+"\n" {
			t.Errorf("tool %q: code %d, stderr %q; want %d, %q", tc.args, code, stderr, exitcode.Usage, tc.stderr+"\n")
		}
	}
}

// Callers tell the two flag errors apart with errors.Is.
func TestFlagErrorSentinels(t *testing.T) {
	var got error
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name:  "run",
		Flags: []cli.Flag{&cli.StringFlag{Name: "base"}},
		Action: func(c *cli.Context) error {
			_, got = cliapp.Args(c)
			return got
		},
	}}}
	run(t, s, "run", "x", "--bogus")
	if !errors.Is(got, cliapp.ErrFlagNotDefined) || errors.Is(got, cliapp.ErrFlagNeedsArgument) {
		t.Errorf("unknown flag: %v is not ErrFlagNotDefined alone", got)
	}
	run(t, s, "run", "x", "--base")
	if !errors.Is(got, cliapp.ErrFlagNeedsArgument) || errors.Is(got, cliapp.ErrFlagNotDefined) {
		t.Errorf("missing value: %v is not ErrFlagNeedsArgument alone", got)
	}
}
