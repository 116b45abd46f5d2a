package drift

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
)

// The two drift policies, side by side. Both run before openspec/specs/
// is written from a change, both read drift's findings for it, and they
// differ on purpose (each is asserted by the end-to-end scripts):
//
//   - Refuse, `jj openspec archive`'s: conflict markers in the change
//     or a stale target refuse the archive with exit 6 (invalid), nothing
//     written, pointing at `jj openspec rebase`; it merges nothing, and a
//     missing target is left to the archive's own validation.
//     --no-drift-check skips it: OpenSpec's archive exactly.
//   - MergeForward, apply's archive and `jj openspec sync`'s: a stale
//     MODIFIED requirement is merged three ways into the change (written
//     through the journal) and the verb goes on; what cannot merge, a
//     missing target or markers halt with exit 4 (conflicts), written
//     as markers where the merge made them.
//
// Why they differ: archive is OpenSpec's verb, run by a person on a
// change they may not have written, so it never rewrites the change's
// deltas behind their back: it refuses and names `jj openspec rebase`,
// the explicit merge. Apply's tail and sync are jj-openspec's own verbs,
// whose job is to carry the change onto the specs as they are now, so
// they merge, and halt only on what a merge cannot settle. Both policies
// live here, next to the findings they read, so they cannot drift apart
// in what they call stale.

// Refuse is archive's drift policy: it refuses (exit 6, nothing
// written) a change whose deltas hold conflict markers or were written
// against specs that moved since (drift's stale findings), naming the
// `jj openspec rebase` that merges it forward. It merges nothing itself.
// A change that does not exist is left to the archive's plan to report;
// stop is false when err is only a failure to read the history.
func Refuse(ctx context.Context, r spec.Root, name string) (stop bool, err error) {
	if err := r.CheckChange(name); err != nil {
		return false, nil // PlanArchive says so
	}
	markers, err := MarkerIssues(r, name)
	if err != nil {
		return false, fmt.Errorf("look for conflict markers in change %q: %w", name, err)
	}
	if len(markers) > 0 {
		var b strings.Builder
		for _, i := range markers {
			fmt.Fprintf(&b, "\n  %s:%d: %s", i.Path, i.Line, i.Message)
		}
		return true, refused("change %q: refusing to archive unresolved conflict markers (nothing was changed):%s", name, b.String())
	}
	p, err := Open(ctx, r)
	if err != nil {
		return false, err
	}
	rep, err := p.Check(ctx, []string{name})
	if err != nil {
		return false, fmt.Errorf("drift check of change %q: %w", name, err)
	}
	var stale []string
	for _, f := range rep.Findings {
		// An ADDED name the spec held before the change was written (or
		// with no base to tell) is not drift: OpenSpec's validation
		// refuses it in its own words ("already exists"), exit 1.
		if f.Op == "ADDED" && (f.Base == "" || f.Detail == existedAtBase) {
			continue
		}
		if f.Kind == Stale && f.Change == name {
			stale = append(stale, strings.TrimRight(Describe(f), "\n"))
		}
	}
	if len(stale) == 0 {
		return false, nil
	}
	return true, refused("change %q was written against specs that moved since (nothing was changed):\n%s\nrun `jj openspec rebase %s` to merge it forward, or archive with --no-drift-check for OpenSpec's behaviour",
		name, strings.Join(stale, "\n"), name)
}

// Forward is a MergeForward: the change, where it writes, and the verb
// that runs it (for its messages).
type Forward struct {
	Root    spec.Root
	Journal string // the intent journal's directory
	// Markers lists conflict markers in a change's files; nil skips
	// that check.
	Markers func(spec.Root, string) ([]spec.Issue, error)
	Change  string
	Verb    string // "apply", "sync": the verb its progress lines start with
	// Rerun is the command a person runs once they fixed a halt: `jj
	// openspec sync CHANGE`, apply's resume (a pipeline member's is the
	// pipeline's).
	Rerun  string
	Halted string // what a halt leaves undone: "nothing synced"
	DryRun bool   // plan the merge, write nothing
	Out    io.Writer
}

// MergeForward is the drift policy of apply's archive and of sync (beside
// archive's Refuse, policy.go), and the three-way merge they run before they write openspec/specs/ from a change
// whose main specs were edited (on trunk, merged into this line of
// history) since the change was written:
//
//   - a stale MODIFIED requirement is merged three ways (drift's
//     MergeRequirement: base = the requirement at the delta's base, ours =
//     the live spec, theirs = the change), so neither side's edit is lost
//     as a blind replace would lose the live one. A clean merge rewrites
//     the delta (and records the change's new base) through the journal,
//     and the caller goes on to write the specs from it.
//   - what the merge cannot settle is written into the delta as conflict
//     markers (the conflict package's format) and it halts, exit 4,
//     naming each file, requirement and both sides (the live spec and
//     the revision that moved it; the change). A person keeps a side
//     (`jj openspec resolve --strategy ours|theirs PATH`) or edits, then
//     re-runs the verb, which finds no markers and nothing stale.
//   - a REMOVED/RENAMED target moved, or a target gone from the live
//     spec, cannot be merged: it halts (exit 4) naming them, nothing
//     written.
//
// Unresolved markers left in the change halt it the same way. The
// result is the merge planned (nil when nothing was stale or no base is
// known: the specs are written as OpenSpec would); DryRun plans it,
// writes nothing, and still returns the halt a real run would meet.
// Nothing under openspec/specs/ is written here.
func MergeForward(ctx context.Context, f Forward) (*RebaseResult, error) {
	change := f.Change
	if f.Markers != nil {
		ms, err := f.Markers(f.Root, change)
		if err != nil {
			return nil, fmt.Errorf("look for conflict markers in change %s: %w", change, err)
		}
		if len(ms) > 0 {
			var items []string
			for _, m := range ms {
				items = append(items, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			return nil, halt("change %s: unresolved conflict markers (%s): %s. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` (ours: the live spec, theirs: the change) or edit them, then re-run `%s`",
				change, strings.Join(items, ", "), f.Halted, f.Rerun)
		}
	}
	proj, rep, err := driftOf(ctx, f.Root, change)
	if err != nil {
		return nil, err
	}
	movedBy := map[string]string{} // capability/requirement → who moved it
	var stale bool
	var missing []string
	for _, fd := range rep.Findings {
		if fd.Change != change {
			continue
		}
		switch fd.Kind {
		case Stale:
			stale = true
			if fd.MovedBy != nil {
				movedBy[fd.Capability+"/"+fd.Requirement] = fmt.Sprintf("%s %q", fd.MovedBy.ID[:min(12, len(fd.MovedBy.ID))], fd.MovedBy.Summary)
			}
		case Missing:
			missing = append(missing, fmt.Sprintf("%s %s %q (%s)", fd.Op, fd.Capability, fd.Requirement, fd.Detail))
		}
	}
	if len(missing) > 0 {
		return nil, halt("change %s: its delta specs name requirements the live specs do not hold: %s; %s. Edit the change's delta specs (openspec/changes/%s/specs/) to match openspec/specs/, then re-run `%s`",
			change, strings.Join(missing, "; "), f.Halted, change, f.Rerun)
	}
	if !stale {
		return nil, nil
	}
	res, err := proj.PlanRebase(ctx, change)
	if errors.Is(err, ErrNoBase) {
		return nil, nil // no history to merge with: the write is OpenSpec's
	}
	if err != nil {
		return nil, fmt.Errorf("merge change %s's delta specs onto the live specs: %w", change, err)
	}
	if len(res.Left) > 0 {
		var left []string
		for _, fd := range res.Left {
			left = append(left, fmt.Sprintf("%s %s %q (%s)", fd.Op, fd.Capability, fd.Requirement, fd.Detail))
		}
		return nil, halt("change %s: the live specs moved under requirements a merge cannot settle: %s; %s. Edit the change's delta specs to match openspec/specs/, then re-run `%s`",
			change, strings.Join(left, "; "), f.Halted, f.Rerun)
	}
	if !f.DryRun {
		if err := res.Apply(f.Root, f.Journal); err != nil {
			return nil, fmt.Errorf("write change %s's merged delta specs: %w", change, err)
		}
	}
	if res.Conflicts == 0 {
		var names []string
		for _, m := range res.Merged {
			names = append(names, fmt.Sprintf("%s %q", m.Capability, m.Requirement))
		}
		if len(names) > 0 && f.Out != nil {
			verb := "merged"
			if f.DryRun {
				verb = "would merge"
			}
			fmt.Fprintf(f.Out, "%s: %s the change's delta specs onto specs edited since its base (clean): %s\n", f.Verb, verb, strings.Join(names, ", "))
		}
		return res, nil
	}
	var where []string
	for _, m := range res.Merged {
		if m.Conflicts == 0 {
			continue
		}
		who := movedBy[m.Capability+"/"+m.Requirement]
		if who == "" {
			who = "a revision since the change's base"
		}
		where = append(where, fmt.Sprintf("openspec/changes/%s/specs/%s/spec.md, requirement %q: %s (ours: the live openspec/specs/%s/spec.md, edited by %s; theirs: change %s)",
			change, m.Capability, m.Requirement, plural.Count(m.Conflicts, "conflict", "conflicts"), m.Capability, who, change))
	}
	written := "is written"
	if f.DryRun {
		written = "would be written"
	}
	return res, halt("change %s: its delta specs conflict with specs edited since it was written: %s; the merge %s as conflict markers, %s. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` or edit the markers, then re-run `%s`",
		change, strings.Join(where, "; "), written, f.Halted, f.Rerun)
}

// driftOf opens the history around r and checks change against the live
// specs (drift's findings).
func driftOf(ctx context.Context, r spec.Root, change string) (*Project, *Report, error) {
	proj, err := Open(ctx, r)
	if err != nil {
		return nil, nil, fmt.Errorf("read the history of change %s's specs: %w", change, err)
	}
	rep, err := proj.Check(ctx, []string{change})
	if err != nil {
		return nil, nil, fmt.Errorf("check change %s against the live specs: %w", change, err)
	}
	return proj, rep, nil
}

// StaleSince reports whether change's delta specs were written against
// main specs edited since (drift's stale findings); false when that
// cannot be told.
func StaleSince(ctx context.Context, r spec.Root, change string) bool {
	_, rep, err := driftOf(ctx, r, change)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Change == change && f.Kind == Stale })
}

// RefusedError is Refuse's refusal: the change was not written (the
// command maps it to exit 6, invalid).
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// HaltError is MergeForward's halt: conflicts or targets a merge cannot
// settle, written into the change as markers where the merge made them
// (the command maps it to exit 4, conflicts).
type HaltError struct{ Msg string }

func (e *HaltError) Error() string { return e.Msg }

func refused(format string, args ...any) error {
	return &RefusedError{Msg: fmt.Sprintf(format, args...)}
}

func halt(format string, args ...any) error {
	return &HaltError{Msg: fmt.Sprintf(format, args...)}
}
