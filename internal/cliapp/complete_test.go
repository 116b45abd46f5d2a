package cliapp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

// TestCompletionRunsNoAction: asking for candidates never runs a command.
// urfave/cli's own completion gave up at a "--" on the line and ran the
// action with its hidden flag as an argument ("run -- <TAB>" started a
// run reading the plan "--generate-bash-completion").
func TestCompletionRunsNoAction(t *testing.T) {
	ran := false
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name:         "run",
		Flags:        []cli.Flag{&cli.StringFlag{Name: "worker"}, &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}}},
		Action:       func(*cli.Context) error { ran = true; return nil },
		BashComplete: cliapp.CompleteSuffix(".md"),
	}}}
	for _, tc := range []struct {
		words []string // then CUR
		want  []string
	}{
		// after "--" a word is an argument, however it looks: a plan file
		{[]string{"run", "--", ""}, []string{":suffix=.md"}},
		{[]string{"run", "--", "--"}, []string{":suffix=.md"}},
		{[]string{"run", "--"}, []string{"--worker", "--yes", "--json", "--repo", "--help"}},
		{[]string{"run", "x.md", "-"}, []string{"--worker", "--yes", "-y", "--json", "--repo", "-R", "--help"}},
		{[]string{"run", "--worker", ""}, nil},
		{[]string{"run", ""}, []string{":suffix=.md"}},
		{[]string{"run", "--worker", "w", "--yes", ""}, []string{":suffix=.md"}},
		{[]string{"-R", ""}, []string{":dirs"}},
		{[]string{"r"}, []string{"run"}},
		{[]string{""}, []string{"run", "doctor", "completion"}},
	} {
		code, out, stderr := run(t, s, append(tc.words, cliapp.CompletionFlag)...)
		got := strings.Fields(out)
		if code != 0 || stderr != "" || !slices.Equal(got, tc.want) {
			t.Errorf("complete %q: code %d, %q, stderr %q; want %q", tc.words, code, got, stderr, tc.want)
		}
	}
	if ran {
		t.Error("completion ran the command's action")
	}
}
