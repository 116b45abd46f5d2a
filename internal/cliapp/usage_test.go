package cliapp_test

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// An unknown verb, at the top or under a command with subcommands, is a
// usage error (exit 2) that says so, names the nearest verb only when it
// is near (one edit from a short word, two from a long one) and where
// the verbs are listed. Without a verb, the help.
func TestUnknownVerbIsUsage(t *testing.T) {
	ok := func(*cli.Context) error { return nil }
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{
		{Name: "run", Action: ok},
		{Name: "resume", Action: ok},
		{Name: "status", Action: ok},
		{Name: "start", Action: ok},
		{Name: "secret", Hidden: true, Action: ok},
		{Name: "review", Subcommands: []*cli.Command{
			{Name: "record", Action: ok},
		}},
	}}
	for _, tc := range []struct {
		args   []string
		code   exitcode.Code
		stderr string
	}{
		{[]string{"rnu"}, exitcode.Usage, `tool: unknown command "rnu"; did you mean "run"? (tool --help lists the commands)` + "\n"},
		{[]string{"statsu", "--json"}, exitcode.Usage, `tool: unknown command "statsu"; did you mean "status"? (tool --help lists the commands)` + "\n"},
		{[]string{"--json", "reveiw"}, exitcode.Usage, `tool: unknown command "reveiw"; did you mean "review"? (tool --help lists the commands)` + "\n"},
		// far from every verb, or near a hidden one only: no guess
		{[]string{"nosuch"}, exitcode.Usage, `tool: unknown command "nosuch" (tool --help lists the commands)` + "\n"},
		{[]string{"secre"}, exitcode.Usage, `tool: unknown command "secre" (tool --help lists the commands)` + "\n"},
		{[]string{"xy"}, exitcode.Usage, `tool: unknown command "xy" (tool --help lists the commands)` + "\n"},
		{[]string{"review", "recrod"}, exitcode.Usage, `tool: review: unknown command "recrod"; did you mean "record"? (tool review --help lists the commands)` + "\n"},
		{[]string{"review", "rnu"}, exitcode.Usage, `tool: review: unknown command "rnu" (tool review --help lists the commands)` + "\n"},
		{[]string{}, exitcode.OK, ""},
		{[]string{"review"}, exitcode.OK, ""},
	} {
		code, stdout, stderr := run(t, s, tc.args...)
		if code != int(tc.code) || stderr != tc.stderr {
			t.Errorf("tool %q: code %d, stderr %q; want %d, %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
		if tc.code == exitcode.OK && stdout == "" {
			t.Errorf("tool %q: no help printed", tc.args)
		}
	}
}

// "help [COMMAND...]" prints what --help prints, at the top and under a
// command with subcommands (which lists no "help" command of its own);
// a word naming no command is the unknown verb's usage error.
func TestHelpTopic(t *testing.T) {
	ok := func(*cli.Context) error { return nil }
	spec := func() cliapp.Spec {
		return cliapp.Spec{Name: "tool", Commands: []*cli.Command{
			{Name: "run", Usage: "run it", Action: ok, Flags: []cli.Flag{&cli.IntFlag{Name: "wave"}}},
			{Name: "review", Usage: "reviews", Subcommands: []*cli.Command{
				{Name: "record", Usage: "record one", Action: ok},
			}},
		}}
	}
	for _, tc := range [][2][]string{
		{{"help"}, {"--help"}},
		{{"help", "run"}, {"run", "--help"}},
		{{"help", "review"}, {"review", "--help"}},
		{{"help", "review", "record"}, {"review", "record", "--help"}},
		{{"review", "help"}, {"review", "--help"}},
		{{"review", "help", "record"}, {"review", "record", "--help"}},
	} {
		code, got, stderr := run(t, spec(), tc[0]...)
		_, want, _ := run(t, spec(), tc[1]...)
		if code != 0 || stderr != "" || got != want || !strings.Contains(got, "NAME:") {
			t.Errorf("tool %q: code %d, stderr %q, stdout\n%s\nwant tool %q's\n%s", tc[0], code, stderr, got, tc[1], want)
		}
	}
	_, out, _ := run(t, spec(), "review", "--help")
	if strings.Contains(out, "help, h") {
		t.Errorf("review --help lists a help command:\n%s", out)
	}
	for args, want := range map[string]string{
		"help bogus":         `tool: unknown command "bogus" (tool --help lists the commands)` + "\n",
		"help review recrod": `tool: review: unknown command "recrod"; did you mean "record"? (tool review --help lists the commands)` + "\n",
		"review help bogus":  `tool: review: unknown command "bogus" (tool review --help lists the commands)` + "\n",
	} {
		code, _, stderr := run(t, spec(), strings.Fields(args)...)
		if code != int(exitcode.Usage) || stderr != want {
			t.Errorf("tool %s: code %d, stderr %q; want 2, %q", args, code, stderr, want)
		}
	}
}
