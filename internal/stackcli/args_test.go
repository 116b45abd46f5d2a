package stackcli

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestPositional(t *testing.T) {
	tests := []struct {
		args     []string
		wantPos  []string
		wantBase string
		wantJSON bool
	}{
		{[]string{"12"}, []string{"12"}, "", false},
		{[]string{"12", "--base", "main", "--json"}, []string{"12"}, "main", true},
		{[]string{"--base=dev", "a", "b", "--json", "c"}, []string{"a", "b", "c"}, "dev", true},
		{[]string{"a", "--", "--base", "b"}, []string{"a", "--base", "b"}, "", false},
	}
	for _, tt := range tests {
		var pos []string
		var base string
		var json bool
		app := &cli.App{Commands: []*cli.Command{{
			Name:  "x",
			Flags: []cli.Flag{&cli.StringFlag{Name: "base"}, &cli.BoolFlag{Name: "json"}},
			Action: func(c *cli.Context) error {
				var err error
				pos, err = positional(c)
				base, json = c.String("base"), c.Bool("json")
				return err
			},
		}}}
		if err := app.Run(append([]string{"app", "x"}, tt.args...)); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !slices.Equal(pos, tt.wantPos) || base != tt.wantBase || json != tt.wantJSON {
			t.Errorf("%q: pos %q base %q json %v; want %q %q %v", tt.args, pos, base, json, tt.wantPos, tt.wantBase, tt.wantJSON)
		}
	}
}
