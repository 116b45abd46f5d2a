package cliapp_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

// TestConfirmSequence: each Confirm reads exactly one line, so two prompts
// in a row get their own answers; the answers and CanPrompt come from the
// injected streams, not the process's.
func TestConfirmSequence(t *testing.T) {
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name: "ask",
		Action: func(c *cli.Context) error {
			if !cliapp.CanPrompt(c) {
				fmt.Fprintln(c.App.Writer, "cannot prompt")
				return nil
			}
			for _, q := range []string{"first?", "second?", "third?"} {
				ok, err := cliapp.Confirm(c, q)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s %v\n", q, ok)
			}
			return nil
		},
	}}}
	tests := []struct {
		terminal bool
		stdin    string
		want     string
	}{
		{true, "yes\nno\ny", "first? true\nsecond? false\nthird? true\n"},
		{true, "n\n", "first? false\nsecond? false\nthird? false\n"},
		{false, "y\ny\ny\n", "cannot prompt\n"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := cliapp.RunStreams(s, []string{"tool", "ask"}, cliapp.Streams{
			In: strings.NewReader(tt.stdin), Out: &out, Err: &errb,
			IsTerminal: func(any) bool { return tt.terminal },
		})
		if code != 0 || out.String() != tt.want {
			t.Errorf("stdin %q terminal %v: exit %d, stdout %q, want %q (stderr %q)", tt.stdin, tt.terminal, code, out.String(), tt.want, errb.String())
		}
		if tt.terminal && errb.String() != "first? [y/N] second? [y/N] third? [y/N] " {
			t.Errorf("stdin %q: questions on stderr %q", tt.stdin, errb.String())
		}
	}
}

// TestIsTerminal: a regular file, a pipe and /dev/null (a character
// device, which a script's `</dev/null` gives) are not terminals,
// whatever is not an *os.File neither.
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, s := range []any{null, f, r, w, &bytes.Buffer{}, nil} {
		if cliapp.IsTerminal(s) {
			t.Errorf("IsTerminal(%T) = true", s)
		}
	}
}
