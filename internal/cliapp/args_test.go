package cliapp_test

import (
	"fmt"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

// A "--" ends the flags wherever it stands, also where urfave/cli stops
// at it (and drops it) before any positional argument: everything after
// it is positional, however it looks.
func TestArgsHonourDoubleDash(t *testing.T) {
	var got string
	action := func(c *cli.Context) error {
		pos, err := cliapp.Args(c)
		if err != nil {
			return err
		}
		got = fmt.Sprintf("%q strategy=%s all=%v json=%v", pos, c.String("strategy"), c.Bool("all"), cliapp.JSON(c))
		return nil
	}
	flags := []cli.Flag{&cli.StringFlag{Name: "strategy", Aliases: []string{"s"}}, &cli.BoolFlag{Name: "all"}}
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{
		{Name: "resolve", Flags: flags, Action: action},
		{Name: "review", Subcommands: []*cli.Command{{Name: "record", Flags: flags, Action: action}}},
	}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resolve", "--strategy", "theirs", "--", "-a b.txt"}, `["-a b.txt"] strategy=theirs all=false json=false`},
		{[]string{"resolve", "-s", "theirs", "--", "f.txt", "--all", "--json"}, `["f.txt" "--all" "--json"] strategy=theirs all=false json=false`},
		{[]string{"resolve", "--", "--strategy", "ours"}, `["--strategy" "ours"] strategy= all=false json=false`},
		{[]string{"--json", "resolve", "--all", "--", "x"}, `["x"] strategy= all=true json=true`},
		{[]string{"resolve", "f.txt", "--strategy", "ours", "--", "--all"}, `["f.txt" "--all"] strategy=ours all=false json=false`},
		{[]string{"resolve", "--strategy=ours", "f.txt", "--all"}, `["f.txt"] strategy=ours all=true json=false`},
		// "--" as a flag's value is that value, not the end of the flags
		{[]string{"resolve", "--strategy", "--", "f.txt", "--all"}, `["f.txt"] strategy=-- all=true json=false`},
		{[]string{"review", "record", "--all", "--", "-x"}, `["-x"] strategy= all=true json=false`},
	} {
		got = ""
		code, _, stderr := run(t, s, tc.args...)
		if code != 0 || got != tc.want {
			t.Errorf("%q: code %d got %s (stderr %q); want %s", tc.args, code, got, stderr, tc.want)
		}
	}
}
