package cliapp_test

import (
	"bytes"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

func TestVerb(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tool", "list"}, "list"},
		{[]string{"tool", "list", "--json"}, "list"},
		{[]string{"tool", "--json", "validate", "x"}, "validate"},
		{[]string{"tool", "-R", "dir", "status"}, "status"},
		{[]string{"tool", "--repo", "list", "validate"}, "validate"}, // a repository named list
		{[]string{"tool", "--repo=dir", "list"}, "list"},
		{[]string{"tool", "--help", "list"}, ""},
		{[]string{"tool", "--version"}, ""},
		{[]string{"tool", "--jsn", "list"}, ""},
		{[]string{"tool"}, ""},
		{[]string{"tool", "-R"}, ""},
		{[]string{"tool", "li", cliapp.CompletionFlag}, ""},
	}
	for _, tt := range tests {
		if got := cliapp.Verb(tt.args); got != tt.want {
			t.Errorf("Verb(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestRunQuick: a run naming a quick command builds only it (the full
// spec is not built), any other run the full spec.
func TestRunQuick(t *testing.T) {
	built := 0
	spec := func() cliapp.Spec {
		built++
		return cliapp.Spec{Name: "tool", Commands: []*cli.Command{
			{Name: "fast", Action: func(c *cli.Context) error {
				_, err := c.App.Writer.Write([]byte("fast from the full spec\n"))
				return err
			}},
			{Name: "slow", Action: func(c *cli.Context) error { _, err := c.App.Writer.Write([]byte("slow\n")); return err }},
		}}
	}
	quick := func() cliapp.Spec {
		return cliapp.Spec{Name: "tool", Quick: func(name string) *cli.Command {
			if name != "fast" {
				return nil
			}
			return &cli.Command{Name: "fast", Action: func(c *cli.Context) error { _, err := c.App.Writer.Write([]byte("fast alone\n")); return err }}
		}}
	}
	for _, tt := range []struct {
		args  []string
		out   string
		built int
	}{
		{[]string{"tool", "fast"}, "fast alone\n", 0},
		{[]string{"tool", "--json", "fast"}, "fast alone\n", 0},
		{[]string{"tool", "slow"}, "slow\n", 1},
		{[]string{"tool", "--help"}, "", 1},
	} {
		built = 0
		var out, errb bytes.Buffer
		if code := cliapp.RunQuick(spec, quick, tt.args, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", tt.args, code, errb.String())
		}
		if tt.out != "" && out.String() != tt.out {
			t.Errorf("%q printed %q, want %q", tt.args, out.String(), tt.out)
		}
		if built != tt.built {
			t.Errorf("%q built the full spec %d times, want %d", tt.args, built, tt.built)
		}
	}
}
