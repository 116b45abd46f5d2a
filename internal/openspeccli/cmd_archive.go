package openspeccli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

func archiveCommand() *cli.Command {
	return &cli.Command{
		Name:         "archive",
		Usage:        "Archive a completed change and update main specs: merge its delta specs into openspec/specs/, move it to the archive",
		ArgsUsage:    "CHANGE",
		BashComplete: completeChange,
		Description: `Archives CHANGE natively, with the semantics of "openspec archive CHANGE":
its delta specs are validated; each is applied to its main spec in the order
RENAMED, REMOVED, MODIFIED, ADDED (operations already applied are no-ops, a
missing spec is created from ADDED only, a MODIFIED block may not drop a
scenario); every rebuilt spec is validated in memory; then the specs are
written atomically and the change moves to
openspec/changes/archive/YYYY-MM-DD-CHANGE/, last. When anything fails,
nothing on disk changes: a failed write restores the specs already written
and names them.

It holds the repository's jj-openspec lock from the first read to the
last write; a second archive (or tasks tick) fails at once with exit 3
naming the holder. A spec that no longer holds the bytes archive read is
not overwritten (exit 1). Before the first write, an intent journal (each
spec's old and new hashes, the new bytes, the move) goes to the ledger
directory; a process killed part-way leaves it, and the next jj-openspec
command, whatever it is, finishes the archive from it (or, when a file it
names was edited since, refuses with their list, exit 1).

No path is read or written through a symbolic link that leads out of the
repository (openspec/specs/CAP, openspec/specs or openspec/changes/archive
linking elsewhere): exit 6, naming the link and where it points.

Drift check: before writing anything (and for --dry-run), a change whose
delta specs hold conflict markers, or whose MODIFIED, REMOVED or RENAMED
targets moved in the live spec since the change's base (the "stale"
finding of check), is refused (exit 6) with the findings and the
"jj openspec rebase CHANGE" that fixes it. Where no base is known (no
history), archive behaves exactly as OpenSpec's; --no-drift-check skips the
check, giving exactly OpenSpec's behaviour everywhere.

Without --yes it asks what OpenSpec 1.13.2 asks (unchecked tasks, then
the specs it would update) on a terminal; where no answer can be read
(stdin or stderr not a terminal, or --json) it refuses as OpenSpec does,
exit 1, writing nothing: "Error: … no answer could be read from stdin."
and its "Fix:" line on stderr, or with --json OpenSpec's document
{archive: null, root, status: [{severity, code, message, fix}]} on stdout.
A change with nothing to ask (tasks done, no specs) archives. While it
writes it holds OpenSpec's claim, openspec/changes/archive/.openspec-archive.lock;
a claim already there (another archive, by either tool, or one OpenSpec
left) refuses, exit 1, naming it. Its own claim appears whole (staged in
the ledger, then linked in) and one a killed jj-openspec left is cleared by
the next jj-openspec command.
Its text is OpenSpec's ("Proposal warnings in proposal.md
(non-blocking):" when its check of the proposal fails, "Specs to
update:", "Applying changes to …", "Totals: …", "Change 'CHANGE'
archived as '…'."). With --json
it prints OpenSpec's document: {archive: {change, archivedAs, path,
specsUpdated, totals, warnings}, root}; --dry-run --json is
jj-openspec's own (the specs, their counts and the diff).
--dry-run prints the unified diff of every spec it would change and writes
nothing (and takes no lock). --skip-specs moves the change without touching
the specs.

With no OpenSpec root here or above, the directory is OpenSpec's
implicit root (there, no change exists). A change whose delta specs fail validation is refused as OpenSpec 1.13.2
refuses it, exit 1, nothing written: "Validation errors in change delta
specs:", its errors and warnings and "Validation failed. …" on stdout, or
with --json its archive_validation_failed document. A spec the deltas
would rebuild invalid is refused the same way: "Validation errors in
rebuilt spec for SPEC", its errors, OpenSpec's way forward (the
retire_capabilities marker, or the content that stands in a
retirement's way) and "Aborted. No files were changed." on stdout, or its
archive_spec_validation_failed document.

Exit codes (OpenSpec's 1 where OpenSpec refuses too; jj-openspec's own
refusals keep the frozen table): 1 when CHANGE does not exist, its
delta specs fail validation or a spec they rebuild would be invalid, a
question could not be asked (see above), OpenSpec's archive claim is
held, the archive folder already exists or a spec changed under it; 6
when the drift check refuses, a delta cannot be applied (the message
names the spec and requirement) or a link leaves the repository; 3 when
another jj-openspec holds the lock.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "archive without asking (unchecked tasks, spec updates); needed without a terminal"},
			&cli.BoolFlag{Name: "skip-specs", Usage: "move the change to the archive without updating the specs"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the unified diff of the specs it would change; write nothing"},
			&cli.BoolFlag{Name: "no-drift-check", Usage: "skip the stale-base and conflict-marker checks: exactly OpenSpec's archive"},
		},
		Action: runArchive,
	}
}

type archiveReport struct {
	Change     string            `json:"change"`
	ArchivedAs string            `json:"archived_as"`
	Path       string            `json:"path"`
	DryRun     bool              `json:"dry_run"`
	Specs      []spec.SpecChange `json:"specs"`
	Totals     spec.Counts       `json:"totals"`
	Tasks      spec.TaskProgress `json:"tasks"`
	Warnings   []string          `json:"warnings,omitempty"`
	Diff       string            `json:"diff,omitempty"`
	SkipSpecs  bool              `json:"-"`
}

func runArchive(c *cli.Context) error {
	args, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return tooManyArgs(c, 1, len(args))
	}
	// OpenSpec's root; with none, the directory is its implicit root.
	return withOSRoot(c, true, func(r spec.Root) error { return archiveOn(c, r, args) })
}

// archiveOn archives the change args name (none: OpenSpec's refusal) in
// OpenSpec's root r.
func archiveOn(c *cli.Context, r spec.Root, args []string) error {
	dry := c.Bool("dry-run")
	archiveDoc := func(st []osStatus) any {
		return struct {
			Archive any        `json:"archive"`
			Root    listRoot   `json:"root"`
			Status  []osStatus `json:"status"`
		}{nil, rootOf(r), st}
	}
	if len(args) == 0 {
		return osFailure(c, nameRequired(c), archiveDoc)
	}
	name := args[0]
	if err := lookupArchiveChange(r, name); err != nil {
		return osFailure(c, err, archiveDoc)
	}
	if !dry && !cliapp.JSON(c) {
		if err := proposalWarnings(c, r, name); err != nil {
			return err
		}
	}
	o := specwrite.ArchiveOptions{Yes: c.Bool("yes"), SkipSpecs: c.Bool("skip-specs"), DryRun: dry, NoDriftCheck: c.Bool("no-drift-check"), JSON: cliapp.JSON(c)}
	if cliapp.CanPrompt(c) {
		o.Ask = func(q string) (bool, error) { return cliapp.Confirm(c, q) }
	}
	plan, err := specwrite.Archive(c.Context, r, name, o)
	if errors.Is(err, specwrite.ErrCancelled) {
		fmt.Fprintln(c.App.Writer, "Archive cancelled.")
		return nil
	}
	if err != nil && plan != nil && plan.DeltasInvalid {
		return refuseInvalidArchive(c, name, plan.Validation, archiveDoc)
	}
	if rie := (*spec.RebuiltInvalidError)(nil); errors.As(err, &rie) && plan != nil {
		return refuseRebuilt(c, plan, rie, archiveDoc)
	}
	if me := (*spec.MergeError)(nil); errors.As(err, &me) && plan != nil {
		return refuseUnmerged(c, plan, me, archiveDoc)
	}
	if err != nil {
		return osFailure(c, err, archiveDoc)
	}
	rep := archiveReport{Change: plan.Change, ArchivedAs: plan.ArchiveName, Path: relTo(r, plan.ArchivePath), DryRun: dry,
		Specs: plan.Changes(), Totals: plan.Totals, Tasks: plan.Progress, Warnings: plan.Warnings, SkipSpecs: c.Bool("skip-specs")}
	if rep.Specs == nil {
		rep.Specs = []spec.SpecChange{}
	}
	if dry {
		rep.Diff = plan.Diff()
	}
	text := func(w io.Writer) error { return writeArchive(w, cliapp.Stderr(c), rep, len(plan.Incomplete)) }
	if dry {
		return cliapp.Emit(c, rep, text) // --dry-run is jj-openspec's own: its own document
	}
	return cliapp.Emit(c, osArchiveDoc(r, rep), text)
}

// osArchived is OpenSpec 1.13.2's archive result, the "archive" of its
// --json document: specsUpdated when a spec was written or retired,
// totals when there were specs to update (not with --skip-specs), the
// merge's warnings and a note for each retired capability.
type osArchived struct {
	Change       string       `json:"change"`
	ArchivedAs   string       `json:"archivedAs"`
	Path         string       `json:"path"`
	SpecsUpdated bool         `json:"specsUpdated"`
	Totals       *spec.Counts `json:"totals,omitempty"`
	Warnings     []string     `json:"warnings,omitempty"`
}

// osArchiveResult is OpenSpec's archive --json document.
type osArchiveResult struct {
	Archive osArchived `json:"archive"`
	Root    listRoot   `json:"root"`
}

func osArchiveDoc(r spec.Root, rep archiveReport) osArchiveResult {
	root := rootOf(r)
	a := osArchived{Change: rep.Change, ArchivedAs: rep.ArchivedAs, Path: filepath.Join(root.Path, filepath.FromSlash(rep.Path))}
	if !rep.SkipSpecs && len(rep.Specs) > 0 {
		a.Totals = &rep.Totals
		a.Warnings = append(a.Warnings, rep.Warnings...)
		for _, s := range rep.Specs {
			a.SpecsUpdated = a.SpecsUpdated || s.Changed || s.Action == "retire"
			if s.Action == "retire" {
				a.Warnings = append(a.Warnings, fmt.Sprintf("%s - capability retired; deleted the main spec (all requirements removed, declared by retire_capabilities) at %s. Its section(s) went with it: Purpose. If it was committed, restore it with: git checkout HEAD -- \":(top)%s\"", s.ID, s.Path, s.Path))
			}
		}
	}
	return osArchiveResult{a, root}
}

// proposalWarnings prints, as OpenSpec 1.13.2's archive does before all
// else, what its validation of the change's proposal finds, which never
// blocks the archive. A proposal jj-openspec cannot read as OpenSpec does
// gets no warnings: the archive reports what stops it.
func proposalWarnings(c *cli.Context, r spec.Root, name string) error {
	issues, err := r.ProposalWarnings(name)
	if err != nil {
		issues = nil // the archive itself reports an unreadable change
	}
	if len(issues) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nProposal warnings in proposal.md (non-blocking):\n")
	for _, i := range issues {
		mark := "⚠" // OpenSpec marks errors and warnings alike
		if i.Level == spec.LevelInfo {
			mark = "ℹ"
		}
		fmt.Fprintf(&b, "  %s %s\n", mark, i.Message)
	}
	_, err = io.WriteString(c.App.Writer, b.String())
	return err
}

// nameRequired is OpenSpec's refusal of an archive naming no change: it
// asks for one from a list only on a terminal, and jj-openspec never does.
func nameRequired(c *cli.Context) error {
	b := &specwrite.Blocked{Code: "archive_change_name_required",
		Message: "A change name is required: no terminal is available to choose one from a list.",
		Fix:     "openspec archive <change-name> --yes"}
	switch {
	case cliapp.JSON(c):
		b.Message, b.Fix = "A change name is required: archive --json is non-interactive.", "openspec archive <change-name> --json"
	case cliapp.CanPrompt(c):
		b.Message, b.Fix = "A change name is required: jj-openspec does not choose one from a list.", "openspec archive <change-name>"
	}
	return b
}

func writeArchive(w, stderr io.Writer, rep archiveReport, incomplete int) error {
	var b strings.Builder
	if rep.DryRun {
		// The diff alone on stdout (it can be piped to patch); the summary
		// goes with the diagnostics.
		fmt.Fprintf(stderr, "Dry run: would archive '%s' as '%s'", rep.Change, rep.ArchivedAs)
		if incomplete > 0 {
			fmt.Fprintf(stderr, " (%s unchecked: needs --yes)", plural.Count(incomplete, "task", "tasks"))
		}
		fmt.Fprintln(stderr, "; nothing written.")
		_, err := io.WriteString(w, rep.Diff)
		return err
	}
	// OpenSpec 1.13.2's text, line for line.
	archivePreamble(&b, rep, incomplete)
	if !rep.SkipSpecs && len(rep.Specs) > 0 {
		writeMergeWarnings(&b, rep.Warnings)
		wrote := false
		for _, s := range rep.Specs {
			switch {
			case s.Action == "retire":
				wrote = true
				fmt.Fprintf(&b, "Retiring %s: all requirements removed.\n", s.Path)
				fmt.Fprintf(&b, "   If it was committed, restore it with: git checkout HEAD -- \":(top)%s\"\n", s.Path)
			case s.Changed:
				wrote = true
				fmt.Fprintf(&b, "Applying changes to %s:\n", s.Path)
				for _, c := range []struct {
					n    int
					mark string
					verb string
				}{{s.Counts.Added, "+", "added"}, {s.Counts.Modified, "~", "modified"}, {s.Counts.Removed, "-", "removed"}, {s.Counts.Renamed, "→", "renamed"}} {
					if c.n > 0 {
						fmt.Fprintf(&b, "  %s %d %s\n", c.mark, c.n, c.verb)
					}
				}
			}
		}
		fmt.Fprintf(&b, "Totals: + %d, ~ %d, - %d, → %d\n", rep.Totals.Added, rep.Totals.Modified, rep.Totals.Removed, rep.Totals.Renamed)
		if wrote {
			b.WriteString("Specs updated successfully.\n")
		} else {
			b.WriteString("Specs already in sync; no files changed.\n")
		}
	}
	fmt.Fprintf(&b, "Change '%s' archived as '%s'.\n", rep.Change, rep.ArchivedAs)
	_, err := io.WriteString(w, b.String())
	return err
}

// archivePreamble writes what OpenSpec 1.13.2 prints before it touches
// a spec: the task status, the incomplete tasks --yes passes over and
// the specs it will update.
func archivePreamble(b *strings.Builder, rep archiveReport, incomplete int) {
	b.WriteString(specwrite.TaskStatus(rep.Tasks, incomplete, true))
	if rep.SkipSpecs {
		b.WriteString("Skipping spec updates (--skip-specs flag provided).\n")
	} else {
		b.WriteString(specwrite.SpecsToUpdate(rep.Specs))
	}
}

// refuseRebuilt refuses, as OpenSpec 1.13.2 does, a change a spec of
// which would be rebuilt invalid: exit 1, with --json its
// archive_spec_validation_failed document, else on stdout what it
// prints before the specs, the rebuilt spec's errors and warnings, the
// way forward and "Aborted. No files were changed.".
func refuseRebuilt(c *cli.Context, plan *spec.ArchivePlan, e *spec.RebuiltInvalidError, doc func([]osStatus) any) error {
	if cliapp.JSON(c) {
		return osFailure(c, &specwrite.Blocked{Code: "archive_spec_validation_failed",
			Message: fmt.Sprintf("Rebuilt spec for '%s' failed validation. No files were changed.", e.Spec),
			Fix:     cmp.Or(e.Hint, fmt.Sprintf("Run openspec validate %s after fixing the change deltas.", e.Spec))}, doc)
	}
	var b strings.Builder
	archivePreamble(&b, archiveReport{Tasks: plan.Progress, Specs: plan.Changes()}, len(plan.Incomplete))
	writeMergeWarnings(&b, plan.Warnings) // every spec is rebuilt before any is checked
	fmt.Fprintf(&b, "\nValidation errors in rebuilt spec for %s (will not write changes):\n", e.Spec)
	writeIssues(&b, e.Issues)
	if e.Hint != "" {
		fmt.Fprintf(&b, "  → %s\n", e.Hint)
	}
	b.WriteString("Aborted. No files were changed.\n")
	if _, err := io.WriteString(c.App.Writer, b.String()); err != nil {
		return err
	}
	return cliapp.Silent(exitcode.Failure)
}

// refuseUnmerged refuses, as OpenSpec 1.13.2 does, a change with a delta
// that cannot be applied to its spec: exit 1, with --json its
// archive_spec_update_failed document, else on stdout what it prints
// before the specs, the merge's message and "Aborted. No files were
// changed.".
func refuseUnmerged(c *cli.Context, plan *spec.ArchivePlan, e *spec.MergeError, doc func([]osStatus) any) error {
	if cliapp.JSON(c) {
		return osFailure(c, &specwrite.Blocked{Code: "archive_spec_update_failed", Message: e.Msg,
			Fix: "Fix the change delta specs and rerun. No files were changed."}, doc)
	}
	var b strings.Builder
	archivePreamble(&b, archiveReport{Tasks: plan.Progress, Specs: append(plan.Changes(), plan.Unmerged...)}, len(plan.Incomplete))
	fmt.Fprintf(&b, "%s\nAborted. No files were changed.\n", e.Msg)
	if _, err := io.WriteString(c.App.Writer, b.String()); err != nil {
		return err
	}
	return cliapp.Silent(exitcode.Failure)
}

// refuseInvalidArchive refuses, as OpenSpec 1.13.2 does, a change whose
// delta specs fail validation: exit 1, with --json its
// archive_validation_failed document, else on stdout the errors and
// warnings (INFO notes only with validate) and its "Validation failed"
// lines.
func refuseInvalidArchive(c *cli.Context, name string, issues []spec.Issue, doc func([]osStatus) any) error {
	if cliapp.JSON(c) {
		return osFailure(c, &specwrite.Blocked{Code: "archive_validation_failed", Message: fmt.Sprintf("Validation failed for change '%s'.", name),
			Fix: fmt.Sprintf("Run openspec validate %s for details, fix the errors, or rerun with --no-validate.", name)}, doc)
	}
	var b strings.Builder
	b.WriteString("\nValidation errors in change delta specs:\n")
	writeIssues(&b, issues)
	b.WriteString("\nValidation failed. Please fix the errors before archiving.\nTo skip validation (not recommended), use --no-validate flag.\n")
	if _, err := io.WriteString(c.App.Writer, b.String()); err != nil {
		return err
	}
	return cliapp.Silent(exitcode.Failure)
}

// writeMergeWarnings writes the merge's warnings as OpenSpec's archive
// does.
func writeMergeWarnings(b *strings.Builder, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(b, "⚠️  Warning: %s\n", w)
	}
}

// writeIssues writes the errors and warnings of a refusal as OpenSpec's
// archive does (INFO notes are validate's alone).
func writeIssues(b *strings.Builder, issues []spec.Issue) {
	for _, i := range issues {
		switch i.Level {
		case spec.LevelError:
			fmt.Fprintf(b, "  ✗ %s\n", i.Message)
		case spec.LevelWarning:
			fmt.Fprintf(b, "  ⚠ %s\n", i.Message)
		}
	}
}

func relTo(r spec.Root, p string) string {
	if rel, ok := strings.CutPrefix(p, r.Dir+"/"); ok {
		return rel
	}
	return p
}
