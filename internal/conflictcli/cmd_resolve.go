package conflictcli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/conflict"
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

func resolveCommand() *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "resolve conflicts in a revision without opening any tool",
		ArgsUsage: "[--] [PATH...]",
		Description: `Resolves the conflicts of the named files (repository-relative paths) in
revision REV (default @, any revision works) by a strategy:

   tasks     merge tasks.md ticks: a task is done if either side ticked it and
             nobody changed its text; other edits merge line by line
   ours      the first of two sides (jj's destination, git's HEAD)
   theirs    the second of two sides (the squashed or merged-in change)
   side=N    side N of any number of sides
   base      the common base
   union     every side's lines in order, lines common to all sides once

--all takes every conflicted file of REV: "tasks" for files named tasks.md,
--strategy (when given) for the others, and no guess otherwise. A hunk a
strategy cannot resolve safely keeps its markers and is reported with the
reason; nothing is dropped silently. jj runs this binary as a merge tool for
the one call, so the revision is rewritten in place and history stays clean.
In the working copy, a file jj does not record as conflicted but whose text
holds conflict markers (as "jj openspec rebase" writes them into a delta)
is resolved in place the same way. --hunk N limits the strategy to hunk N
of the one PATH given. Flags may
follow the paths; after "--" everything is a path, however it looks.

REV is parsed by jj on its own and must name one revision, else it is a usage
error (exit 2) with jj's message. Nothing is read or written through a
symbolic link that leads out of the repository: a PATH that is, or goes
through, such a link is refused (exit 6) naming the link and where it points,
and only regular files are opened. Exits 4 (conflicts) when any conflict
remains in the files asked for, and 1 when jj would not record a resolution
(an immutable revision, for one; the message says why), with the report
printed first.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "revision", Aliases: []string{"r"}, Value: "@", Usage: "the `REV` to resolve in"},
			&cli.StringFlag{Name: "strategy", Aliases: []string{"s"}, Usage: "`STRATEGY`: tasks, ours, theirs, side=N, base or union"},
			&cli.BoolFlag{Name: "all", Usage: "every conflicted file of REV (tasks for tasks.md files)"},
			&cli.IntSliceFlag{Name: "hunk", Usage: "only hunk `N` of the one PATH (repeatable; numbered as resolve reports them)"},
		},
		Action: func(c *cli.Context) error {
			paths, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			req := conflict.ResolveRequest{Rev: c.String("revision"), All: c.Bool("all"), Hunks: c.IntSlice("hunk")}
			if s := c.String("strategy"); s != "" {
				st, err := conflict.ParseStrategy(s)
				if err != nil {
					return exitcode.Wrap(exitcode.Usage, err)
				}
				req.Strategy = &st
			}
			switch {
			case req.All && len(paths) > 0:
				return exitcode.New(exitcode.Usage, "resolve: give PATHs or --all, not both")
			case !req.All && len(paths) == 0:
				return exitcode.New(exitcode.Usage, "resolve: name the conflicted PATHs to resolve, or pass --all")
			case !req.All && req.Strategy == nil:
				return exitcode.New(exitcode.Usage, "resolve: pass --strategy (tasks, ours, theirs, side=N, base or union)")
			}
			repo, err := open(c)
			if err != nil {
				return err
			}
			for _, p := range paths {
				rel, err := repoPath(repo.Root, p)
				if err != nil {
					return exitcode.Wrap(exitcode.Usage, err)
				}
				req.Paths = append(req.Paths, rel)
			}
			prog, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find this program to register it as jj's merge tool: %w", err)
			}
			req.Program = prog
			rep, err := conflict.ResolveInRevision(c.Context, repo, req)
			if errors.Is(err, conflict.ErrNotConflicted) || errors.Is(err, conflict.ErrBadRequest) {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			if err != nil {
				return err
			}
			if rep.Files == nil {
				rep.Files = []conflict.FileOutcome{}
			}
			if err := cliapp.Emit(c, rep, func(w io.Writer) error { return resolveText(w, rep) }); err != nil {
				return err
			}
			for _, f := range rep.Files {
				if f.Error != "" {
					return exitcode.New(exitcode.Failure, "resolve %s: %s", f.Path, f.Error)
				}
			}
			for _, f := range rep.Files {
				if f.Conflicted {
					return cliapp.Silent(exitcode.Conflicts)
				}
			}
			return nil
		},
	}
}

func resolveText(w io.Writer, rep conflict.ResolveReport) error {
	var b strings.Builder
	if len(rep.Files) == 0 {
		fmt.Fprintf(&b, "no conflicted files in %s\n", short(rep.ChangeID))
	}
	for _, f := range rep.Files {
		strategy := f.Strategy
		if strategy == "" {
			strategy = "none"
		}
		switch {
		case !f.Conflicted && f.Error == "":
			fmt.Fprintf(&b, "resolved %s (%s): %d %s", f.Path, strategy, f.Before, plural.Word(f.Before, "hunk", "hunks"))
			if len(f.Ticks) > 0 {
				fmt.Fprintf(&b, ", ticks %s", strings.Join(f.Ticks, " "))
			}
			b.WriteString("\n")
		case len(f.Left) == 0:
			fmt.Fprintf(&b, "left %s (%s): no conflict markers it can read\n", f.Path, strategy)
		default:
			fmt.Fprintf(&b, "left %s (%s): %d of %d %s still conflicted\n", f.Path, strategy, len(f.Left), f.Before, plural.Word(f.Before, "hunk", "hunks"))
			for _, h := range f.Left {
				fmt.Fprintf(&b, "  hunk %d at lines %d-%d (%d sides): %s\n", h.Index, h.StartLine, h.EndLine, h.Sides, h.Reason)
			}
			if len(f.Ticks) > 0 {
				fmt.Fprintf(&b, "  ticks merged: %s\n", strings.Join(f.Ticks, " "))
			}
		}
		for _, p := range f.Problems {
			fmt.Fprintf(&b, "  problem: %s\n", p)
		}
		if f.Error != "" {
			first, _, _ := strings.Cut(f.Error, "\n")
			fmt.Fprintf(&b, "  error: %s\n", first)
		}
	}
	if len(rep.Remaining) > 0 {
		fmt.Fprintf(&b, "still conflicted in %s: %s\n", short(rep.ChangeID), strings.Join(rep.Remaining, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
