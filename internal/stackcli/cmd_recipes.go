package stackcli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
)

func recipesCommand() *cli.Command {
	return &cli.Command{
		Name:      "recipes",
		Usage:     "print the validation recipes of a spec issue's tickets",
		ArgsUsage: "SPEC-ISSUE",
		Description: `Reads the "## Validation" section of each open sub-issue that does not need a
human, and prints the union of their "### Run per change" commands, the union
of their "### Run at review" commands, and each ticket's own lists. A command
is a line's first backticked span; a line with none, or a prose line
("absent: …", "not applicable: …", "Recipe measured …", "Needs: …",
"Deferred repo gate: …", also after a "Label:"), names none. Each command is
kept once, two that differ only in whitespace being one, as first written.
Tickets without "### Run per change" are listed as missing, and the command
exits 6 after printing.`,
		Flags: []cli.Flag{humanLabelFlag},
		Action: func(c *cli.Context) error {
			n, err := specArg(c)
			if err != nil {
				return err
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			set, err := stack.SpecRecipes(c.Context, env.GH, n, s.humanLabel)
			if err != nil {
				return err
			}
			if err := cliapp.Emit(c, set, func(w io.Writer) error { return writeRecipes(w, set) }); err != nil {
				return err
			}
			if len(set.Missing) > 0 {
				var names []string
				for _, m := range set.Missing {
					names = append(names, fmt.Sprintf("#%d", m.Number))
				}
				return exitcode.New(exitcode.Invalid, "tickets without a \"### Run per change\" validation recipe: %s", strings.Join(names, ", "))
			}
			return nil
		},
	}
}

func writeRecipes(w io.Writer, set stack.RecipeSet) error {
	var b strings.Builder
	list := func(title string, cmds []string) {
		fmt.Fprintf(&b, "%s:\n", title)
		if len(cmds) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, c := range cmds {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	list("run per change", set.PerChange)
	list("run at review", set.AtReview)
	for _, m := range set.Missing {
		fmt.Fprintf(&b, "missing \"### Run per change\": #%d %s\n", m.Number, m.Title)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
