package conflictcli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/conflict"
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

func conflictsCommand(opts Options) *cli.Command {
	return &cli.Command{
		Name:      "conflicts",
		Usage:     "list conflicted revisions and their conflicted files (exit 4 when there are some)",
		ArgsUsage: " ",
		Description: `Lists the conflicted revisions in REVSET (default @) and, for each, the
conflicted files with the number of hunks and sides jj wrote in them. Exits 0
when there are none and 4 (conflicts) when there are some, so scripts can
test it; unlike "jj resolve --list", which exits 2 when there are none. jj
parses REVSET on its own, as one argument: a revset it refuses (a syntax
error, an unknown name) is a usage error (exit 2) with jj's message.
In jj-openspec, with REVSET @, files of the OpenSpec changes whose text
holds conflict markers jj does not record (a conflicting "jj openspec
rebase" writes them) are listed too, and count as conflicts.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "revisions", Aliases: []string{"r"}, Value: "@", Usage: "the `REVSET` to look in"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitcode.New(exitcode.Usage, "conflicts takes no arguments (got %q): pass a revset with -r", c.Args().Slice())
			}
			repo, err := open(c)
			if err != nil {
				return err
			}
			revs, err := conflict.Scan(c.Context, repo, c.String("revisions"))
			if err != nil {
				return err
			}
			out := conflictsView{Revset: c.String("revisions"), Revisions: revs}
			if out.Revisions == nil {
				out.Revisions = []conflict.RevisionConflicts{}
			}
			if opts.TextMarkers != nil && out.Revset == "@" {
				if out.TextMarkers, err = opts.TextMarkers(repo.Root); err != nil {
					return err
				}
			}
			if err := cliapp.Emit(c, out, out.text); err != nil {
				return err
			}
			if len(revs) > 0 || len(out.TextMarkers) > 0 {
				return cliapp.Silent(exitcode.Conflicts)
			}
			return nil
		},
	}
}

type conflictsView struct {
	Revset      string                       `json:"revset"`
	Revisions   []conflict.RevisionConflicts `json:"revisions"`
	TextMarkers []TextConflict               `json:"text_markers,omitempty"`
}

func (v conflictsView) text(w io.Writer) error {
	var b strings.Builder
	if len(v.Revisions) == 0 && len(v.TextMarkers) == 0 {
		fmt.Fprintf(&b, "no conflicts in %s\n", v.Revset)
	}
	for _, r := range v.Revisions {
		desc := r.Description
		if desc == "" {
			desc = "(no description set)"
		}
		fmt.Fprintf(&b, "%s %s %s\n", short(r.ChangeID), short(r.CommitID), desc)
		for _, f := range r.Files {
			fmt.Fprintf(&b, "  %s: %d %s, %d sides\n", f.Path, f.Hunks, plural.Word(f.Hunks, "hunk", "hunks"), f.Sides)
			for _, p := range f.Problems {
				fmt.Fprintf(&b, "    problem: %s\n", p)
			}
		}
	}
	if len(v.TextMarkers) > 0 {
		b.WriteString("conflict markers in the working copy (not recorded by jj; `resolve --strategy ours|theirs PATH` takes a side):\n")
		for _, t := range v.TextMarkers {
			fmt.Fprintf(&b, "  %s:%d: %d %s\n", t.Path, t.Line, t.Hunks, plural.Word(t.Hunks, "hunk", "hunks"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
