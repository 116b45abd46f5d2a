package osapply

import (
	"context"
	"errors"
	"fmt"
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

// mergeSpecsForward prepares the archive of the change's delta specs onto
// openspec/specs/ as they are now, when they were edited (on trunk,
// merged into this line of history) since the change was written:
//
//   - a stale MODIFIED requirement is merged three ways (drift's
//     MergeRequirement: base = the requirement at the delta's base, ours =
//     the live spec, theirs = the change), so neither side's edit is lost
//     as a blind replace would lose the live one. A clean merge rewrites
//     the delta and the archive goes on.
//   - what the merge cannot settle is written into the delta as conflict
//     markers (the conflict package's format) and apply halts, exit 4,
//     naming each file, requirement and both sides (the live spec and
//     the revision that moved it; the change). A person keeps a side
//     (`jj openspec resolve --strategy ours|theirs PATH`) or edits, then
//     re-runs apply, which finds no markers and nothing stale.
//   - a REMOVED/RENAMED target moved, or a target gone from the live
//     spec, cannot be merged: apply halts (exit 4) naming them, nothing
//     written.
//
// Unresolved markers left in the change halt it the same way.
func mergeSpecsForward(ctx context.Context, env *Env, r *engine.Runner, p *Plan) error {
	if env.Markers != nil {
		ms, err := env.Markers(env.Root, p.Change)
		if err != nil {
			return fmt.Errorf("look for conflict markers in change %s: %w", p.Change, err)
		}
		if len(ms) > 0 {
			var items []string
			for _, m := range ms {
				items = append(items, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			return exitcode.New(exitcode.Conflicts, "change %s: unresolved conflict markers (%s): nothing archived. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` (ours: the live spec, theirs: the change) or edit them, then re-run `jj openspec apply %s`",
				p.Change, strings.Join(items, ", "), p.Change)
		}
	}
	proj, err := drift.Open(ctx, env.Root)
	if err != nil {
		return fmt.Errorf("read the history of change %s's specs: %w", p.Change, err)
	}
	rep, err := proj.Check(ctx, []string{p.Change})
	if err != nil {
		return fmt.Errorf("check change %s against the live specs: %w", p.Change, err)
	}
	movedBy := map[string]string{} // capability/requirement → who moved it
	var stale bool
	var missing []string
	for _, f := range rep.Findings {
		if f.Change != p.Change {
			continue
		}
		switch f.Kind {
		case drift.Stale:
			stale = true
			if f.MovedBy != nil {
				movedBy[f.Capability+"/"+f.Requirement] = fmt.Sprintf("%s %q", shortID(f.MovedBy.ID), f.MovedBy.Summary)
			}
		case drift.Missing:
			missing = append(missing, fmt.Sprintf("%s %s %q (%s)", f.Op, f.Capability, f.Requirement, f.Detail))
		}
	}
	if len(missing) > 0 {
		return exitcode.New(exitcode.Conflicts, "change %s: its delta specs name requirements the live specs do not hold: %s; nothing archived. Edit the change's delta specs (openspec/changes/%s/specs/) to match openspec/specs/, then re-run `jj openspec apply %s`",
			p.Change, strings.Join(missing, "; "), p.Change, p.Change)
	}
	if !stale {
		return nil
	}
	res, err := proj.PlanRebase(ctx, p.Change)
	if errors.Is(err, drift.ErrNoBase) {
		return nil // no history to merge with: the archive is OpenSpec's
	}
	if err != nil {
		return fmt.Errorf("merge change %s's delta specs onto the live specs: %w", p.Change, err)
	}
	if len(res.Left) > 0 {
		var left []string
		for _, f := range res.Left {
			left = append(left, fmt.Sprintf("%s %s %q (%s)", f.Op, f.Capability, f.Requirement, f.Detail))
		}
		return exitcode.New(exitcode.Conflicts, "change %s: the live specs moved under requirements a merge cannot settle: %s; nothing archived. Edit the change's delta specs to match openspec/specs/, then re-run `jj openspec apply %s`",
			p.Change, strings.Join(left, "; "), p.Change)
	}
	if err := res.Apply(env.Root, env.Journal); err != nil {
		return fmt.Errorf("write change %s's merged delta specs: %w", p.Change, err)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	status := "clean"
	if res.Conflicts > 0 {
		status = "conflicts"
	}
	if err := r.Record(engine.Event{Kind: EvSpecsMerged, Status: status, Files: files}); err != nil {
		return err
	}
	if res.Conflicts == 0 {
		var names []string
		for _, m := range res.Merged {
			names = append(names, fmt.Sprintf("%s %q", m.Capability, m.Requirement))
		}
		fmt.Fprintf(env.Out, "apply: merged the change's delta specs onto specs edited since its base (clean): %s\n", strings.Join(names, ", "))
		return nil
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
			p.Change, m.Capability, m.Requirement, plural.Count(m.Conflicts, "conflict", "conflicts"), m.Capability, who, p.Change))
	}
	return exitcode.New(exitcode.Conflicts, "change %s: its delta specs conflict with specs edited since it was written: %s; the merge is written as conflict markers, nothing archived or pushed. Keep a side with `jj openspec resolve --strategy ours|theirs PATH` or edit the markers, then re-run `jj openspec apply %s`",
		p.Change, strings.Join(where, "; "), p.Change)
}

// staleSince reports whether change's delta specs were written against
// main specs edited since (drift's stale findings); false when that
// cannot be told.
func staleSince(ctx context.Context, r spec.Root, change string) bool {
	proj, err := drift.Open(ctx, r)
	if err != nil {
		return false
	}
	rep, err := proj.Check(ctx, []string{change})
	if err != nil {
		return false
	}
	for _, f := range rep.Findings {
		if f.Change == change && f.Kind == drift.Stale {
			return true
		}
	}
	return false
}
