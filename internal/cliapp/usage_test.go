package cliapp_test

import (
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
