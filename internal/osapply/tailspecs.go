package osapply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// EvSpecsMerged records the change's delta specs merged forward onto
// main specs edited since its base (Files: the rewritten files; Status
// clean or conflicts).
const EvSpecsMerged = "apply-specs-merged"

// mergeSpecsForward is apply's MergeForward, recorded in its ledger.
func mergeSpecsForward(ctx context.Context, env *Env, r *engine.Runner, p *Plan) error {
	res, err := MergeForward(ctx, Forward{Root: env.Root, Journal: env.Journal, Markers: env.Markers, Change: p.Change,
		Verb: "apply", Rerun: env.commands(p.Change).Resume, Halted: "nothing archived or pushed", Out: env.Out})
	if res == nil {
		return err
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	status := "clean"
	if res.Conflicts > 0 {
		status = "conflicts"
	}
	if rerr := r.Record(engine.Event{Kind: EvSpecsMerged, Status: status, Files: files}); rerr != nil {
		return rerr
	}
	return err
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

// MergeForward is the drift check and three-way merge that apply's
// archive and sync run before they write openspec/specs/ from a change
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
func MergeForward(ctx context.Context, f Forward) (*drift.RebaseResult, error) {
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
			return nil, exitcode.New(exitcode.Conflicts, "change %s: unresolved conflict markers (%s): %s. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` (ours: the live spec, theirs: the change) or edit them, then re-run `%s`",
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
		case drift.Stale:
			stale = true
			if fd.MovedBy != nil {
				movedBy[fd.Capability+"/"+fd.Requirement] = fmt.Sprintf("%s %q", shortID(fd.MovedBy.ID), fd.MovedBy.Summary)
			}
		case drift.Missing:
			missing = append(missing, fmt.Sprintf("%s %s %q (%s)", fd.Op, fd.Capability, fd.Requirement, fd.Detail))
		}
	}
	if len(missing) > 0 {
		return nil, exitcode.New(exitcode.Conflicts, "change %s: its delta specs name requirements the live specs do not hold: %s; %s. Edit the change's delta specs (openspec/changes/%s/specs/) to match openspec/specs/, then re-run `%s`",
			change, strings.Join(missing, "; "), f.Halted, change, f.Rerun)
	}
	if !stale {
		return nil, nil
	}
	res, err := proj.PlanRebase(ctx, change)
	if errors.Is(err, drift.ErrNoBase) {
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
		return nil, exitcode.New(exitcode.Conflicts, "change %s: the live specs moved under requirements a merge cannot settle: %s; %s. Edit the change's delta specs to match openspec/specs/, then re-run `%s`",
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
	return res, exitcode.New(exitcode.Conflicts, "change %s: its delta specs conflict with specs edited since it was written: %s; the merge %s as conflict markers, %s. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` or edit the markers, then re-run `%s`",
		change, strings.Join(where, "; "), written, f.Halted, f.Rerun)
}

// driftOf opens the history around r and checks change against the live
// specs (drift's findings).
func driftOf(ctx context.Context, r spec.Root, change string) (*drift.Project, *drift.Report, error) {
	proj, err := drift.Open(ctx, r)
	if err != nil {
		return nil, nil, fmt.Errorf("read the history of change %s's specs: %w", change, err)
	}
	rep, err := proj.Check(ctx, []string{change})
	if err != nil {
		return nil, nil, fmt.Errorf("check change %s against the live specs: %w", change, err)
	}
	return proj, rep, nil
}

// staleSince reports whether change's delta specs were written against
// main specs edited since (drift's stale findings); false when that
// cannot be told.
func staleSince(ctx context.Context, r spec.Root, change string) bool {
	_, rep, err := driftOf(ctx, r, change)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(rep.Findings, func(f drift.Finding) bool { return f.Change == change && f.Kind == drift.Stale })
}

// SyncResult is what Sync did (or, dry, would do): the three-way merge
// of the change's deltas onto specs edited since its base (nil when none
// was needed) and the sync of the (merged) deltas into the main specs.
type SyncResult struct {
	Merge *drift.RebaseResult
	Plan  *spec.ArchivePlan
}

// Sync is `jj openspec sync`: OpenSpec's sync of change's delta specs
// into openspec/specs/ without archiving, after the drift check and
// three-way merge apply's archive runs (MergeForward), so a stale
// MODIFIED requirement is merged, not written over live edits. Dry plans
// both and writes nothing. On a halt the result holds what was planned
// (the merge's conflicts; the plan's validation issues). The caller holds
// the project lock; journal is its intent journal's directory.
func Sync(ctx context.Context, r spec.Root, journal, change string, dry bool, out io.Writer) (*SyncResult, error) {
	merge, err := MergeForward(ctx, Forward{Root: r, Journal: journal, Markers: drift.MarkerIssues, Change: change,
		Verb: "sync", Rerun: "jj openspec sync " + change, Halted: "nothing synced", DryRun: dry, Out: out})
	res := &SyncResult{Merge: merge}
	if err != nil {
		return res, err
	}
	if merge != nil && !dry {
		// The merged delta is written, the specs are not yet: a sync
		// killed here is run again and goes on from the merged delta.
		engine.CrashPoint("sync-merged")
	}
	planRoot := r
	if dry && merge != nil {
		// The specs as the merged deltas, not yet written, make them.
		planRoot = r.WithFiles(merge.Contents())
	}
	res.Plan, err = planRoot.PlanArchive(change, spec.ArchiveOptions{Yes: true})
	if err != nil || dry {
		return res, err
	}
	return res, res.Plan.Sync(journal)
}
