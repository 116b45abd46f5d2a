package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/spec"
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
a sync. --dry-run prints the unified diff and writes nothing.

The OpenSpec CLI 1.13 has no sync verb to compare against; the merge is
archive's, which the parity suite checks against "openspec archive".

Exit codes: 2 when CHANGE does not exist, 6 when validation fails or a
delta cannot be applied, 3 when another jj-openspec holds the lock, 1 when
a spec changed under it.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the unified diff of the specs it would change; write nothing"},
		},
		Action: runSync,
	}
}

type syncReport struct {
	Change string            `json:"change"`
	DryRun bool              `json:"dry_run"`
	Specs  []spec.SpecChange `json:"specs"`
	Totals spec.Counts       `json:"totals"`
	Diff   string            `json:"diff,omitempty"`
}

func runSync(c *cli.Context) error {
	name, r, dry, dir, release, err := changeVerb(c)
	defer release()
	if err != nil {
		return err
	}
	plan, err := r.PlanArchive(name, spec.ArchiveOptions{Yes: true})
	if err != nil {
		if plan != nil && !cliapp.JSON(c) {
			for _, i := range plan.Validation {
				if i.Level == spec.LevelError || i.Level == spec.LevelWarning {
					fmt.Fprintf(cliapp.Stderr(c), "  [%s] %s: %s\n", i.Level, i.Path, i.Message)
				}
			}
		}
		return classify(err)
	}
	rep := syncReport{Change: name, DryRun: dry, Specs: plan.Changes(), Totals: plan.Totals}
	if rep.Specs == nil {
		rep.Specs = []spec.SpecChange{}
	}
	if dry {
		rep.Diff = plan.Diff()
	} else if err := plan.Sync(dir); err != nil {
		return classify(err)
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
