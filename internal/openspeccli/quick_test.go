package openspeccli

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestQuickCommandsAreSpecs: each command Quick builds alone is the one
// Spec holds under its name (usage, description, arguments, flags and
// their usage), and only the read-only verbs are quick.
func TestQuickCommandsAreSpecs(t *testing.T) {
	full := map[string]*cli.Command{}
	for _, c := range Spec().Commands {
		full[c.Name] = c
	}
	for _, name := range []string{"list", "status", "validate", "tasks"} {
		q := Quick().Quick(name)
		f := full[name]
		if q == nil || f == nil {
			t.Fatalf("%s: quick %v, in Spec %v", name, q != nil, f != nil)
		}
		if q.Usage != f.Usage || q.Description != f.Description || q.ArgsUsage != f.ArgsUsage || !slices.Equal(q.Aliases, f.Aliases) {
			t.Errorf("%s: the quick command's texts differ from Spec's", name)
		}
		if got, want := flagDocs(q), flagDocs(f); !slices.Equal(got, want) {
			t.Errorf("%s: quick flags %q, Spec's %q", name, got, want)
		}
		if (q.Action == nil) != (f.Action == nil) {
			t.Errorf("%s: one has an action, the other not", name)
		}
	}
	for _, name := range []string{"apply", "archive", "propose", "init", "sync", "conflicts", ""} {
		if Quick().Quick(name) != nil {
			t.Errorf("%q is quick; only read-only verbs are", name)
		}
	}
}

func flagDocs(c *cli.Command) []string {
	var out []string
	for _, f := range c.Flags {
		out = append(out, f.String())
	}
	return out
}
