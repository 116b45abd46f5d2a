package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec/drift"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "find open changes written against stale specs, overlapping, or already applied",
		ArgsUsage: "[CHANGE...]",
		Description: `Checks the named open changes (every one when none is named) against the
main specs they were written against, their base: in jj the parent of the
earliest revision in ::@ that added the delta file, in git the parent of
the earliest commit that added it; a delta not committed yet has @'s parent
(jj) or HEAD (git); a "base:" commit ID in the change's .openspec.yaml wins.
Without history (a plain directory, a git repository without commits) there
is no base, and check says so instead of guessing.

Findings, each naming change, capability and requirement:
   stale            a MODIFIED/REMOVED/RENAMED target's live text differs from
                    its base text (or an ADDED name is taken): the revision and
                    the archived change that moved it, and for MODIFIED the
                    requirement "rebase" would write
   overlap          two open changes modify, remove or rename the same
                    requirement, or add one of the same name
   missing          a MODIFIED/REMOVED/RENAMED target is not in the live spec:
                    "removed since base" or "never existed"
   already-applied  the live spec already holds the delta's effect

Exits 0 when clean, 6 (invalid) when a target is missing, else 4
(conflicts) when there is any other finding; "jj openspec rebase CHANGE"
merges stale MODIFIED requirements forward.`,
		Action: runCheck,
	}
}

func runCheck(c *cli.Context) error {
	names, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	r, err := openRoot(c)
	if err != nil {
		return err
	}
	if err := warnConfig(c, r); err != nil {
		return err
	}
	p, err := drift.Open(c.Context, r)
	if err != nil {
		return err
	}
	rep, err := p.Check(c.Context, names)
	if err != nil {
		return classify(err)
	}
	if err := cliapp.Emit(c, rep, func(w io.Writer) error { return writeCheck(w, rep) }); err != nil {
		return err
	}
	return checkExit(rep)
}

// checkExit is check's exit code: 6 for a missing target, 4 for any
// other finding.
func checkExit(rep *drift.Report) error {
	switch {
	case rep.Has(drift.Missing):
		return cliapp.Silent(exitcode.Invalid)
	case !rep.Clean():
		return cliapp.Silent(exitcode.Conflicts)
	}
	return nil
}

func writeCheck(w io.Writer, rep *drift.Report) error {
	var b strings.Builder
	for _, ch := range rep.Changes {
		noted := false
		for _, base := range ch.Bases {
			if base.Note != "" && !noted {
				fmt.Fprintf(&b, "%s: no base: %s; stale deltas cannot be detected\n", ch.Change, base.Note)
				noted = true
			}
		}
		if ch.NoBase && !noted {
			fmt.Fprintf(&b, "%s: no base (%s history): stale deltas cannot be detected\n", ch.Change, rep.History)
		}
	}
	for _, f := range rep.Findings {
		b.WriteString(drift.Describe(f))
	}
	if rep.Clean() {
		fmt.Fprintf(&b, "clean: %s checked (%s history)\n", plural.Count(len(rep.Changes), "change", "changes"), rep.History)
	} else {
		fmt.Fprintf(&b, "%s in %s checked (%s history)\n", plural.Count(len(rep.Findings), "finding", "findings"), plural.Count(len(rep.Changes), "change", "changes"), rep.History)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
