package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:         "sync",
		Usage:        "merge a change's delta specs into openspec/specs/ without archiving it",
		ArgsUsage:    "CHANGE",
		BashComplete: completeChange,
		Description: `Merges CHANGE's delta specs into the main specs with archive's own merge
(validated, RENAMED, REMOVED, MODIFIED, ADDED; every rebuilt spec validated
in memory) and writes them through the same intent journal, under the
project lock, but leaves the change in openspec/changes/: a later archive
finds the operations applied and only moves it. Unchecked tasks do not stop
a sync.

Main specs edited since the change was written (on trunk, merged into this
line of history) are handled as apply's archive handles them, by the same
code: a MODIFIED requirement whose live text moved since the change's base
(see check) is merged three ways (base = the requirement at the base, ours =
the live spec, theirs = the change), never replaced blindly. A clean merge
rewrites the change's delta and records its new base (see rebase), then the
specs are written from it. A conflict is written as markers into the
change's delta file, nothing under openspec/specs/ is written, and sync
exits 4 naming the file, the requirement and both sides; keep a side with
"jj openspec resolve --strategy ours|theirs PATH" (ours: the live spec,
theirs: the change) or edit the markers, then run the sync again. Markers
left in the change, and REMOVED or RENAMED targets that moved (or targets
gone from the live spec), stop it the same way (exit 4) before anything is
written. Where no base is known (no history), the sync is archive's merge
as OpenSpec does it.

--dry-run prints the unified diff of every file it would write (the merged
delta and .openspec.yaml, then the specs) and the merge's outcome on
stderr; it writes nothing and exits 4 where a sync would stop on
conflicts. A process killed part-way leaves the journal, which the next
jj-openspec command finishes: the merged delta is written before any spec,
so a sync run again goes on from it.

The OpenSpec CLI 1.13 has no sync verb to compare against; the merge is
archive's, which the parity suite checks against "openspec archive".

Exit codes: 2 when CHANGE does not exist, 4 when the change conflicts with
specs edited since it was written (see above), 6 when validation fails or
a delta cannot be applied, 3 when another jj-openspec holds the lock, 1
when a spec changed under it.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the unified diff of the files it would write and the merge outcome; write nothing"},
		},
		Action: runSync,
	}
}

type syncReport struct {
	Change string              `json:"change"`
	DryRun bool                `json:"dry_run"`
	Merge  *drift.RebaseResult `json:"merge,omitempty"` // the three-way merge onto specs edited since the change's base
	Specs  []spec.SpecChange   `json:"specs"`
	Totals spec.Counts         `json:"totals"`
	Diff   string              `json:"diff,omitempty"`
}

func runSync(c *cli.Context) error {
	name, r, dry, err := changeVerb(c)
	if err != nil {
		return err
	}
	res, err := specwrite.Sync(c.Context, r, name, dry, cliapp.Stderr(c))
	if res == nil {
		return err
	}
	rep := syncReport{Change: name, DryRun: dry, Merge: res.Merge, Specs: []spec.SpecChange{}}
	if err != nil {
		switch {
		case res.Plan == nil && res.Merge != nil:
			// Conflicts: what the merge writes (or, dry, would write)
			// into the change; nothing under openspec/specs/.
			rep.Diff = mergeDiff(res.Merge)
			if eerr := cliapp.Emit(c, rep, func(w io.Writer) error {
				if !dry {
					return nil
				}
				_, err := io.WriteString(w, rep.Diff)
				return err
			}); eerr != nil {
				return eerr
			}
		case res.Plan != nil && !cliapp.JSON(c):
			for _, i := range res.Plan.Validation {
				if i.Level == spec.LevelError || i.Level == spec.LevelWarning {
					fmt.Fprintf(cliapp.Stderr(c), "  [%s] %s: %s\n", i.Level, i.Path, i.Message)
				}
			}
		}
		return err
	}
	plan := res.Plan
	rep.Specs, rep.Totals = plan.Changes(), plan.Totals
	if rep.Specs == nil {
		rep.Specs = []spec.SpecChange{}
	}
	if dry {
		rep.Diff = mergeDiff(res.Merge) + plan.Diff()
	}
	return cliapp.Emit(c, rep, func(w io.Writer) error {
		if dry {
			fmt.Fprintf(cliapp.Stderr(c), "Dry run: would sync '%s' into openspec/specs/; nothing written.\n", name)
			_, err := io.WriteString(w, rep.Diff)
			return err
		}
		var b strings.Builder
		for _, s := range rep.Specs {
			fmt.Fprintf(&b, "%s %s: +%d ~%d -%d →%d\n", s.Action, s.Path, s.Counts.Added, s.Counts.Modified, s.Counts.Removed, s.Counts.Renamed)
		}
		fmt.Fprintf(&b, "Change '%s' synced into openspec/specs/ (not archived).\n", name)
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// mergeDiff is the unified diff of the change's files a merge forward
// rewrites; "" for none.
func mergeDiff(res *drift.RebaseResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, f := range res.Files {
		b.WriteString(f.Diff)
	}
	return b.String()
}
