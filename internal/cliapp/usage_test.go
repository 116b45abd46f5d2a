package cliapp_test

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// An unknown verb, at the top or under a command with subcommands, is a
// usage error (exit 2), not urfave's own exit code.
func TestUnknownVerbIsUsage(t *testing.T) {
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{
		{Name: "status", Action: func(*cli.Context) error { return nil }},
		{Name: "review", Subcommands: []*cli.Command{
			{Name: "record", Action: func(*cli.Context) error { return nil }},
		}},
	}}
	for _, tc := range []struct {
		args []string
		verb string
	}{
		{[]string{"nosuch"}, "nosuch"},
		{[]string{"statsu", "--json"}, "statsu"},
		{[]string{"review", "recrod"}, "recrod"},
	} {
		code, _, stderr := run(t, s, tc.args...)
		if code != int(exitcode.Usage) || !strings.Contains(stderr, "'"+tc.verb+"'") {
			t.Errorf("tool %v: code %d, stderr %q; want %d naming %q", tc.args, code, stderr, exitcode.Usage, tc.verb)
		}
	}
}
