package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/regfile"
)

// Archive errors a caller can branch on.
var (
	// ErrInvalid: the change's deltas, or a spec they would produce, fail
	// validation. Nothing was written.
	ErrInvalid = errors.New("validation failed")
	// ErrIncomplete: unchecked tasks remain and Yes was not given.
	ErrIncomplete = errors.New("incomplete tasks")
	// ErrArchiveExists: the archive folder for today is taken.
	ErrArchiveExists = errors.New("archive destination exists")
)

// ArchiveOptions are the flags of archive.
type ArchiveOptions struct {
	Yes       bool      // archive even with unchecked tasks
	SkipSpecs bool      // move the change without merging its deltas
	Now       time.Time // date of the archive folder (local time); zero means now
}

// ArchivePlan is everything archive would do, computed in memory.
type ArchivePlan struct {
	Root        Root          `json:"-"`
	Change      string        `json:"change"`
	ArchiveName string        `json:"archived_as"`
	ArchivePath string        `json:"path"`
	Progress    TaskProgress  `json:"tasks"`
	Incomplete  []Task        `json:"incomplete,omitempty"`
	Specs       []*SpecUpdate `json:"-"`
	Totals      Counts        `json:"totals"`
	Warnings    []string      `json:"warnings,omitempty"`
	Validation  []Issue       `json:"validation,omitempty"`
	// DeltasInvalid: the change's delta specs failed validation (their
	// issues are Validation), rather than a spec they would produce.
	DeltasInvalid bool `json:"-"`
	// Unmerged are the specs a delta that could not be applied (a
	// *MergeError) left unmerged, that one first: ID and Action (create
	// or update) only.
	Unmerged []SpecChange `json:"-"`
}

// SpecChange describes one spec of a plan for reports.
type SpecChange struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Action  string `json:"action"` // create, update or unchanged
	Counts  Counts `json:"counts"`
	Changed bool   `json:"changed"`
}

// Changes lists the plan's spec updates for reports.
func (p *ArchivePlan) Changes() []SpecChange {
	var out []SpecChange
	for _, u := range p.Specs {
		rel, _ := filepath.Rel(p.Root.Dir, u.Target)
		action := "update"
		switch {
		case u.Retire:
			action = "retire"
		case !u.Exists:
			action = "create"
		case u.Merged.Counts.Total() == 0:
			action = "unchanged"
		}
		out = append(out, SpecChange{ID: u.ID, Path: filepath.ToSlash(rel), Action: action, Counts: u.Merged.Counts, Changed: u.Merged.Counts.Total() > 0})
	}
	return out
}

var datePrefix = lazyregexp.New(`^\d{4}-\d{2}-\d{2}-`)

var deltaHeaderAnywhere = lazyregexp.New(`(?im)^##[\t\v\f \x{a0}\x{feff}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\r\n]+(ADDED|MODIFIED|REMOVED|RENAMED)[\t\v\f \x{a0}\x{feff}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\r\n]+Requirements`)

// PlanArchive checks and prepares the archive of change with OpenSpec
// 1.13's semantics, touching nothing on disk: the change's deltas are
// validated, every spec is merged and the result validated in memory.
// Errors wrap ErrChangeNotFound, ErrInvalid, ErrIncomplete or
// ErrArchiveExists; a *MergeError names the spec and requirement.
func (r Root) PlanArchive(change string, opts ArchiveOptions) (*ArchivePlan, error) {
	if err := r.CheckChange(change); err != nil {
		return nil, err
	}
	if err := r.checkArchivePaths(change, opts.SkipSpecs); err != nil {
		return nil, err
	}
	changeDir := r.ChangeDir(change)
	p := &ArchivePlan{Root: r, Change: change}
	if nested := r.NestedChanges(change); nested != nil {
		return p, fmt.Errorf("cannot archive %q (%w): %s Rename openspec/changes/%s/ to a flat change directory, then archive it", change, ErrInvalid, DescribeNested(change, nested), nested[0])
	}

	needsValidation, err := r.hasDeltaSpecs(change)
	if err != nil {
		return nil, err
	}
	if needsValidation {
		issues, err := r.changeIssues(change, ValidateOptions{})
		if err != nil {
			return nil, err
		}
		if HasErrors(issues, false) {
			p.Validation = issues
			p.DeltasInvalid = true
			return p, fmt.Errorf("change %q: %w: %s; run `jj-openspec validate %s` for details", change, ErrInvalid, firstError(issues), change)
		}
	}

	tf, err := r.tasks(change)
	if err != nil {
		return nil, err
	}
	p.Progress = tf.Progress()
	for _, t := range tf.Tasks {
		if !t.Checked {
			p.Incomplete = append(p.Incomplete, t)
		}
	}
	if len(p.Incomplete) > 0 && !opts.Yes {
		var list []string
		for _, t := range p.Incomplete {
			list = append(list, fmt.Sprintf("  line %d: %s", t.Line, t.Text))
		}
		return p, fmt.Errorf("change %q has %s (%w):\n%s\ncomplete them, or re-run with --yes to archive anyway", change, plural.Count(len(p.Incomplete), "unchecked task", "unchecked tasks"), ErrIncomplete, strings.Join(list, "\n"))
	}

	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	p.ArchiveName = change
	if !datePrefix.MatchString(change) {
		p.ArchiveName = now.Format("2006-01-02") + "-" + change
	}
	p.ArchivePath = filepath.Join(r.ArchiveDir(), p.ArchiveName)
	if _, err := os.Lstat(p.ArchivePath); err == nil {
		return p, fmt.Errorf("archive %q to %s: %w; rename or remove it first", change, p.ArchivePath, ErrArchiveExists)
	}

	if opts.SkipSpecs {
		return p, nil
	}
	files, err := DiscoverSpecs(filepath.Join(changeDir, "specs"))
	if err != nil {
		return nil, err
	}
	for i, sf := range files {
		u, err := r.mergeOne(change, sf)
		if err != nil {
			var me *MergeError
			if errors.As(err, &me) {
				for _, rest := range files[i:] {
					action := "create"
					if fi, err := os.Stat(filepath.Join(r.SpecsDir(), filepath.FromSlash(rest.ID), "spec.md")); err == nil && fi.Mode().IsRegular() {
						action = "update"
					}
					p.Unmerged = append(p.Unmerged, SpecChange{ID: rest.ID, Action: action})
				}
				return p, fmt.Errorf("change %q, spec %q: %w (nothing was changed)", change, sf.ID, err)
			}
			return nil, err
		}
		p.Specs = append(p.Specs, u)
		p.Warnings = append(p.Warnings, u.Merged.Warnings...)
	}
	retire := r.retireMarker(change)
	kept := make([]*SpecUpdate, 0, len(p.Specs))
	for _, u := range p.Specs {
		issues := ValidateSpecContent(u.ID, u.Merged.Content)
		if !HasErrors(issues, false) {
			kept = append(kept, u)
			continue
		}
		emptied := onlyNoRequirements(issues) && u.Merged.Counts.Added+u.Merged.Counts.Modified+u.Merged.Counts.Renamed == 0
		if emptied && retire && !u.Exists {
			// OpenSpec 1.13.2's "skip": the capability is already
			// retired, nothing to write or delete for it.
			continue
		}
		if emptied && retire && u.Merged.Counts.Removed > 0 && onlySkeleton(u.Merged.Content) {
			// OpenSpec's "retire": the spec is deleted (with its
			// folder, when that is left empty).
			u.Retire = true
			kept = append(kept, u)
			continue
		}
		p.Validation = append(p.Validation, issues...)
		return p, &RebuiltInvalidError{Change: change, Spec: u.ID, Issues: issues, Hint: rebuiltHint(u, emptied, retire)}
	}
	p.Specs = kept
	for _, u := range p.Specs {
		if u.Merged.Counts.Total() > 0 {
			p.Totals.Added += u.Merged.Counts.Added
			p.Totals.Modified += u.Merged.Counts.Modified
			p.Totals.Removed += u.Merged.Counts.Removed
			p.Totals.Renamed += u.Merged.Counts.Renamed
		}
	}
	return p, nil
}

// RebuiltInvalidError is a spec a change's deltas would rebuild that
// fails validation; nothing was changed. It wraps ErrInvalid.
type RebuiltInvalidError struct {
	Change, Spec string
	Issues       []Issue
	// Hint is OpenSpec 1.13.2's way forward, "" where it names none.
	Hint string
}

func (e *RebuiltInvalidError) Error() string {
	hint := strings.TrimSuffix(e.Hint, ".")
	if hint == "" {
		hint = "fix the change's delta for it"
	}
	return fmt.Sprintf("change %q: the rebuilt spec %q would be invalid (%s): %v; %s; nothing was changed", e.Change, e.Spec, firstError(e.Issues), ErrInvalid, hint)
}

func (e *RebuiltInvalidError) Unwrap() error { return ErrInvalid }

// rebuiltHint is OpenSpec 1.13.2's way forward for spec update u, whose
// rebuilt spec fails validation (emptied: only for having no
// requirements left): name the retire_capabilities marker when adding it
// is all that is missing, else the content that stands in the way of a
// retirement; "" when neither applies.
func rebuiltHint(u *SpecUpdate, emptied, retire bool) string {
	if !emptied || !u.Exists {
		return ""
	}
	left := unaccounted(u.Merged.Content)
	switch {
	case retire && len(left) > 0:
		return fmt.Sprintf("'%s' declares retire_capabilities, but the spec holds content the merge cannot safely account for and deleting the file would take with it: %s. Move it into `## Purpose` or a canonical requirement, or delete the spec by hand.", u.ID, describeLines(left))
	case retire || u.Merged.Counts.Removed == 0:
		return ""
	case len(left) > 0:
		return fmt.Sprintf("This change removes the last requirement '%s' has, so the rebuilt spec has none left and cannot be written. Retiring the capability is what archive does instead, and it is refused while the spec holds content the merge cannot safely account for and deleting the file would take with it: %s. Move it into `## Purpose` or a canonical requirement, or delete the spec by hand, then rerun.", u.ID, describeLines(left))
	}
	return fmt.Sprintf("This change removes the last requirement '%s' has. To retire the capability and delete its spec, add `retire_capabilities: true` to the change's .openspec.yaml (alongside its `schema:`, which that file requires), then rerun.", u.ID)
}

// describeLines quotes the first three of lines as OpenSpec names content
// a retirement would take (control characters as ?, each clipped at 200
// characters), and counts the rest.
func describeLines(lines []string) string {
	var shown []string
	for _, l := range lines[:min(3, len(lines))] {
		rs := []rune(l)
		for i, r := range rs {
			if r < 0x20 || r == 0x7f {
				rs[i] = '?'
			}
		}
		q := string(rs)
		if len(rs) > 200 {
			q = string(rs[:200]) + "\u2026"
		}
		shown = append(shown, `"`+q+`"`)
	}
	out := strings.Join(shown, ", ")
	if len(lines) > 3 {
		out += fmt.Sprintf(", and %d more line(s)", len(lines)-3)
	}
	return out
}

// onlySkeleton reports whether a rebuilt spec holds nothing a retirement
// would lose unawares: a title, its Purpose and an empty Requirements
// section (OpenSpec refuses to retire a spec with content the merge
// cannot account for).
func onlySkeleton(content string) bool { return len(unaccounted(content)) == 0 }

// unaccounted is the lines of a rebuilt spec beside its skeleton (see
// onlySkeleton), trimmed, in order.
func unaccounted(content string) []string {
	var left []string
	section := ""
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
		case strings.HasPrefix(t, "# ") && section == "":
		case sectionNamed(t, "purpose") || sectionNamed(t, "requirements"):
			section = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(t, "##")))
		case section == "purpose" && !strings.HasPrefix(t, "#"):
		default:
			left = append(left, t)
		}
	}
	return left
}

// sectionNamed reports whether trimmed line t is a "##" header naming
// the section name, in any case (as OpenSpec finds Purpose and
// Requirements).
func sectionNamed(t, name string) bool {
	rest, ok := strings.CutPrefix(t, "##")
	return ok && rest != strings.TrimLeft(rest, " \t") && strings.EqualFold(strings.TrimSpace(rest), name)
}

// onlyNoRequirements reports whether the one error of issues is a spec
// left without requirements.
func onlyNoRequirements(issues []Issue) bool {
	n := 0
	for _, i := range issues {
		if i.Level == LevelError {
			if i.Message != "Spec must have at least one requirement" {
				return false
			}
			n++
		}
	}
	return n == 1
}

// retireMarker reports whether the change declares retire_capabilities
// in valid metadata naming a schema that loads, as OpenSpec honours it.
func (r Root) retireMarker(change string) bool {
	md := readChangeMetadata(r.ChangeDir(change))
	if !md.retire {
		return false
	}
	_, err := r.LoadSchema(md.schema)
	return err == nil
}

func firstError(issues []Issue) string {
	for _, i := range issues {
		if i.Level == LevelError {
			if i.Path != "" && i.Path != "file" {
				return i.Path + ": " + i.Message
			}
			return i.Message
		}
	}
	return ""
}

// hasDeltaSpecs is archive's test for whether the change's deltas must be
// validated before archiving.
func (r Root) hasDeltaSpecs(change string) (bool, error) {
	specsDir := filepath.Join(r.ChangeDir(change), "specs")
	if root, err := hasRootSpecFile(specsDir); root || err != nil {
		return root, err
	}
	unread, err := findUnreadDeltas(specsDir)
	if err != nil {
		return false, err
	}
	if len(unread) > 0 {
		return true, nil
	}
	m := r.skipSpecsMarker(change)
	if m.invalid != "" {
		return true, nil
	}
	if m.declared {
		ok, err := hasAnyFileUnder(specsDir)
		if ok || err != nil {
			return true, nil
		}
		return false, nil
	}
	files, err := DiscoverSpecs(specsDir)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		b, err := r.ReadText(f.Path)
		if errors.Is(err, regfile.ErrNotRegular) {
			return false, err
		}
		if err == nil && deltaHeaderAnywhere.Match(b) {
			return true, nil
		}
	}
	return false, nil
}

// tasks parses the change's task files as one list.
func (r Root) tasks(change string) (TasksFile, error) {
	var all TasksFile
	for _, f := range r.TaskFiles(change) {
		b, err := r.ReadText(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return all, err
		}
		tf := ParseTasks(string(b))
		all.Groups = append(all.Groups, tf.Groups...)
		all.Tasks = append(all.Tasks, tf.Tasks...)
	}
	return all, nil
}

// Diff is the unified diff of every spec the plan changes.
func (p *ArchivePlan) Diff() string {
	var b strings.Builder
	for _, u := range p.Specs {
		if u.Merged.Counts.Total() == 0 {
			continue
		}
		rel, _ := filepath.Rel(p.Root.Dir, u.Target)
		if u.Retire {
			b.WriteString(UnifiedDiff(filepath.ToSlash(rel), u.Old, "", u.Exists))
			continue
		}
		b.WriteString(UnifiedDiff(filepath.ToSlash(rel), u.Old, p.output(u), u.Exists))
	}
	return b.String()
}

// output is the bytes written for u: the merged spec in the line-ending
// convention the existing file used.
func (p *ArchivePlan) output(u *SpecUpdate) string {
	if !u.Exists {
		return u.Merged.Content
	}
	return matchLineEnding(u.Merged.Content, u.Old)
}

// Apply writes the plan through an intent journal in journalDir (see
// internal/journal): every changed spec still holding the bytes the plan
// read is replaced atomically, then the change folder moves into the
// archive, last. A spec edited since it was read stops the archive before
// anything is written (journal.ErrChanged); a failed write restores the
// specs already written and the error (a *journal.RollbackError) names
// them; a process killed part-way leaves the journal, from which the next
// command finishes the archive (journal.Recover). Writes go to the real
// paths, so a symbolic link inside Bound stays a link.
func (p *ArchivePlan) Apply(journalDir string) error {
	r := p.Root
	in := journal.Intent{What: fmt.Sprintf("archive of %q", p.Change)}
	var err error
	if in.Writes, err = p.specWrites(); err != nil {
		return err
	}
	from, err := r.Resolve(r.ChangeDir(p.Change))
	if err != nil {
		return err
	}
	to, err := r.Resolve(p.ArchivePath)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("archive %q to %s: %w; rename or remove it first", p.Change, p.ArchivePath, ErrArchiveExists)
	}
	in.Move = journal.Move{From: from, To: to, ShowFrom: r.Show(r.ChangeDir(p.Change)), ShowTo: r.Show(p.ArchivePath)}
	return journal.Run(journalDir, in)
}

// specWrites are the journal writes of the plan's changed specs.
func (p *ArchivePlan) specWrites() ([]journal.Write, error) {
	r := p.Root
	var ws []journal.Write
	for _, u := range p.Specs {
		if u.Merged.Counts.Total() == 0 {
			continue // already in sync: leave the file byte for byte
		}
		real, err := r.Resolve(u.Target)
		if err != nil {
			return nil, err
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(real); err == nil {
			mode = fi.Mode().Perm()
		}
		ws = append(ws, journal.Write{Path: real, Show: r.Show(u.Target), Exists: u.Exists, Old: u.Raw, New: []byte(p.output(u)), Mode: mode, Delete: u.Retire})
	}
	return ws, nil
}

// checkArchivePaths refuses, before anything is read, an archive that
// would read or write through a symbolic link leading out of Bound: in the
// change (all of it), on the way to the archive folder, or (unless
// skipSpecs) to the main spec of any delta.
func (r Root) checkArchivePaths(change string, skipSpecs bool) error {
	if err := r.checkTree(r.ChangeDir(change)); err != nil {
		return err
	}
	for _, f := range r.TaskFiles(change) {
		if _, err := r.Resolve(f); err != nil {
			return err
		}
	}
	if _, err := r.Resolve(r.ArchiveDir()); err != nil {
		return err
	}
	if skipSpecs {
		return nil
	}
	files, err := DiscoverSpecs(filepath.Join(r.ChangeDir(change), "specs"))
	if err != nil {
		return err
	}
	for _, sf := range files {
		if _, err := r.Resolve(filepath.Join(r.SpecsDir(), filepath.FromSlash(sf.ID), "spec.md")); err != nil {
			return err
		}
	}
	return nil
}

// matchLineEnding rewrites LF content to the dominant line ending of
// original (CRLF wins a tie); original without line breaks leaves LF.
func matchLineEnding(content, original string) string {
	crlf := strings.Count(original, "\r\n")
	lf := strings.Count(original, "\n") - crlf
	if crlf == 0 && lf == 0 {
		return content
	}
	normalized := strings.ReplaceAll(content, "\r\n", "\n")
	if crlf >= lf {
		return strings.ReplaceAll(normalized, "\n", "\r\n")
	}
	return normalized
}
