package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec/drift"
)

func rebaseCommand() *cli.Command {
	return &cli.Command{
		Name:      "rebase",
		Usage:     "merge a change's stale MODIFIED requirements forward onto the live specs",
		ArgsUsage: "CHANGE",
		Description: `For each MODIFIED requirement of CHANGE whose live text moved since the
change's base (see check), merges three ways: base = the requirement at the
base, ours = the live one, theirs = the change's block. Scenario by scenario
first (matched by name: scenarios added or edited on different sides all
stay), then line by line within the text and each scenario. What both sides
changed differently becomes git-style conflict markers (ours = the live
spec, theirs = the change) in the change's delta file: "jj openspec
resolve --strategy ours|theirs PATH" takes a side, and validate fails
naming each hunk until they are gone. Then the change's new base, the
revision holding the live specs (in jj @'s parent when @ leaves the
specs alone, else @; in git HEAD, only when the specs are committed), is
recorded as "base:" in its .openspec.yaml. Nothing under
openspec/specs/ is touched. Stale REMOVED and RENAMED targets are reported,
not merged.

--dry-run prints the unified diff and writes nothing. Holds the
jj-openspec lock; writes go through the archive journal, so a killed rebase
is finished by the next command.

Exits 4 when conflict markers were written, 2 when CHANGE does not exist,
1 when no delta has a base (no history: record one with "base:").`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the unified diff of the files it would rewrite; write nothing"},
		},
		Action: runRebase,
	}
}

func runRebase(c *cli.Context) error {
	name, r, dry, err := changeVerb(c)
	if err != nil {
		return err
	}
	res, err := specwrite.Rebase(c.Context, r, name, dry)
	if err != nil {
		return err
	}
	if err := cliapp.Emit(c, res, func(w io.Writer) error { return writeRebase(w, res, dry) }); err != nil {
		return err
	}
	if res.Conflicts > 0 {
		return cliapp.Silent(exitcode.Conflicts)
	}
	return nil
}

func writeRebase(w io.Writer, res *drift.RebaseResult, dry bool) error {
	var b strings.Builder
	if dry {
		for _, f := range res.Files {
			b.WriteString(f.Diff)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(res.Merged) == 0 {
		fmt.Fprintf(&b, "%s: no stale MODIFIED requirement to merge\n", res.Change)
	}
	for _, m := range res.Merged {
		if m.Conflicts == 0 {
			fmt.Fprintf(&b, "merged %s %q: clean\n", m.Capability, m.Requirement)
		} else {
			fmt.Fprintf(&b, "merged %s %q: %s written as markers\n", m.Capability, m.Requirement, plural.Count(m.Conflicts, "conflict", "conflicts"))
		}
	}
	for _, f := range res.Left {
		fmt.Fprintf(&b, "left %s %q (%s): %s; edit the delta by hand\n", f.Capability, f.Requirement, f.Op, f.Detail)
	}
	for _, f := range res.Files {
		if f.Markers > 0 {
			fmt.Fprintf(&b, "conflicts in %s: resolve them with `jj openspec resolve --strategy ours|theirs %s` or by hand\n", f.Path, f.Path)
		}
	}
	switch {
	case res.NewBase != "":
		fmt.Fprintf(&b, "recorded base %s in openspec/changes/%s/.openspec.yaml\n", res.NewBase[:min(12, len(res.NewBase))], res.Change)
	case res.BaseNote != "":
		fmt.Fprintf(&b, "no new base recorded: %s\n", res.BaseNote)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
