package cliapp_test

import (
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

// A flag's --help line states its default once: the one its usage
// states, else urfave/cli's.
func TestFlagDefaultStatedOnce(t *testing.T) {
	flags := []cli.Flag{
		&cli.Float64Flag{Name: "max-cost", Usage: "stop at `USD` (default: [worker] max-cost, else no limit)"},
		&cli.IntFlag{Name: "max-parallel", Usage: "at most `N` at once (default: all of a wave)"},
		&cli.IntFlag{Name: "rounds", Usage: "review rounds", Value: 3},
		&cli.StringFlag{Name: "base", Usage: "base branch (default: the repository's default branch)"},
		&cli.StringFlag{Name: "sort", Usage: "recent or name", Value: "recent"},
		&cli.StringFlag{Name: "odd", Usage: "a (default: x (y))", Value: "z"},
		&cli.BoolFlag{Name: "changes", Usage: "list the changes (the default)"},
		&cli.BoolFlag{Name: "specs", Usage: "list the specs"},
		&cli.BoolFlag{Name: "color", Usage: "colour the output", Value: true},
		&cli.UintFlag{Name: "depth", Usage: "how deep (default: all the way)"},
		&cli.DurationFlag{Name: "poll", Usage: "every `DURATION`", Value: 30 * time.Second},
		cliapp.RequiredInt{IntFlag: &cli.IntFlag{Name: "wave", Usage: "the wave `N`"}},
	}
	app := cliapp.New(cliapp.Spec{Name: "tool", Commands: []*cli.Command{{Name: "list", Flags: flags, Action: func(*cli.Context) error { return nil }}}})
	want := []string{
		"--max-cost USD\tstop at USD (default: [worker] max-cost, else no limit)",
		"--max-parallel N\tat most N at once (default: all of a wave)",
		"--rounds value\treview rounds (default: 3)",
		"--base value\tbase branch (default: the repository's default branch)",
		`--sort value	recent or name (default: "recent")`,
		`--odd value	a (default: x (y)) (default: "z")`, // not a stated default it can split off
		"--changes\tlist the changes (the default)",
		"--specs\tlist the specs", // off until given: nothing to state
		"--color\tcolour the output (default: true)",
		"--depth value\thow deep (default: all the way)",
		"--poll DURATION\tevery DURATION (default: 30s)",
		"--wave N\tthe wave N", // required: no "(default: 0)"
	}
	for i, f := range app.Commands[0].Flags[:len(want)] {
		if got := cli.FlagStringer(f); got != want[i] {
			t.Errorf("flag %d: %q; want %q", i, got, want[i])
		}
		if got := f.String(); got != want[i] { // what --help prints
			t.Errorf("flag %d's String: %q; want %q", i, got, want[i])
		}
	}
	// New again (flags shared by commands, specs built twice): the same.
	cliapp.New(cliapp.Spec{Name: "tool", Commands: []*cli.Command{{Name: "list", Flags: flags, Action: func(*cli.Context) error { return nil }}}})
	if got := cli.FlagStringer(flags[0]); got != want[0] {
		t.Errorf("after a second New: %q; want %q", got, want[0])
	}
}
