package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/conflict"
	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/regfile"
)

// FanIn squashes wave w's approved tasks into @, smallest diff first (or
// in the recorded merge order), non-interactively. Tasks already in @'s
// ancestry (auto-chained) need no squash. After each squash @ is checked
// for conflicts: tasks.md conflicts are reconciled automatically, any
// other conflict halts the run naming the files and sides. Approved
// tasks' workspaces are released first (so no workspace holds a change
// being rewritten); failed tasks keep theirs. Then the wave's summary is
// appended to the prior-waves file and the baseline is re-recorded.
func (r *Runner) FanIn(ctx context.Context, w int) error {
	if err := r.trustRecorded(); err != nil {
		return err
	}
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	if st.FannedIn[w] {
		return nil
	}
	var approved []*TaskState
	for _, n := range nums {
		t := st.Tasks[n]
		if len(t.Conflict) > 0 {
			if err := r.recheckConflict(ctx, t); err != nil {
				return err
			}
		}
		if t.Squashed || !t.Collected || t.Failed() || !t.Approved {
			continue
		}
		approved = append(approved, t)
	}
	r.order(approved)
	if err := r.releaseAll(ctx, approved); err != nil {
		return err
	}
	takenBack, err := r.checkKilledBatch(ctx, w)
	if err != nil {
		return err
	}
	// One look at every approved change: still visible? already in @'s
	// ancestry (auto-chained)?
	var all []string
	for _, t := range approved {
		all = append(all, t.Changes...)
	}
	inAt, err := r.Backend.Integrated(ctx, all)
	if err != nil {
		return fmt.Errorf("wave %d: find the approved changes: %w", w, err)
	}
	var squashing []Event
	for _, t := range approved {
		if !t.Squashing {
			squashing = append(squashing, Event{Task: t.Num, Wave: w, Payload: Squashing{Changes: t.Changes}})
			t.Squashing = true
		}
	}
	if len(squashing) > 0 {
		if err := r.record(squashing...); err != nil {
			return err
		}
	}
	batched := false
	if !takenBack {
		if batched, err = r.squashBatch(ctx, w, approved, inAt); err != nil {
			return err
		}
	}
	if !batched {
		for _, t := range approved {
			if err := r.squash(ctx, w, t, inAt); err != nil {
				return err
			}
		}
		// The authoritative check: jj's own word on each squash is only a
		// fast path.
		if n := len(approved); n > 0 {
			if err := r.resolveConflicts(ctx, w, approved[n-1]); err != nil {
				return err
			}
		}
	}
	// Summarize every task of the wave now in @, including those a halted
	// fan-in squashed before a person resolved its conflicts.
	var merged []*TaskState
	now := r.State()
	for _, n := range nums {
		if t := now.Tasks[n]; t.Squashed {
			merged = append(merged, t)
		}
	}
	summary, err := r.waveSummary(ctx, st.BaselineCommit, merged)
	if err != nil {
		return err
	}
	if err := r.appendPriorWaves(w, summary); err != nil {
		return err
	}
	at, err := r.Backend.Head(ctx)
	if err != nil {
		return err
	}
	if err := r.record(Event{Wave: w, Payload: Baselined{Commit: at}},
		Event{Wave: w, Payload: FannedIn{}}); err != nil {
		return err
	}
	r.logf("wave %d: fanned in (%s)", w, plural.Count(len(merged), "task", "tasks"))
	return nil
}

// releaseAll releases the workspaces of ts (in one VCS call where the
// backend can).
func (r *Runner) releaseAll(ctx context.Context, ts []*TaskState) error {
	var wss []Workspace
	var events []Event
	for _, t := range ts {
		if t.Workspace != "" && !t.Released {
			wss = append(wss, Workspace{Name: t.Workspace, Path: t.Path})
			events = append(events, Event{Task: t.Num, Wave: t.Wave, Payload: Released{Workspace: t.Workspace}})
		}
	}
	if len(wss) == 0 {
		return nil
	}
	if err := r.Backend.ReleaseAll(ctx, wss); err != nil {
		return err
	}
	return r.record(events...)
}

// order sorts tasks by the recorded merge order, else by files touched,
// then lines changed, then plan order.
func (r *Runner) order(ts []*TaskState) {
	mo := r.Doc.Header.Options.MergeOrder
	rank := func(n int) int {
		if i := slices.Index(mo, n); i >= 0 {
			return i
		}
		return len(mo)
	}
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if len(mo) > 0 && rank(a.Num) != rank(b.Num) {
			return rank(a.Num) < rank(b.Num)
		}
		if len(a.Files) != len(b.Files) {
			return len(a.Files) < len(b.Files)
		}
		if a.Lines != b.Lines {
			return a.Lines < b.Lines
		}
		return false
	})
}

func (r *Runner) release(ctx context.Context, t *TaskState) error {
	if err := r.Backend.Release(ctx, Workspace{Name: t.Workspace}); err != nil {
		return err
	}
	return r.record(Event{Task: t.Num, Wave: t.Wave, Payload: Released{Workspace: t.Workspace}})
}

// visibleChanges returns task t's changes that still exist (inAt's
// keys) and whether every one of them is already in @'s ancestry.
func visibleChanges(t *TaskState, inAt map[string]bool) (visible []string, chained bool) {
	chained = true
	for _, c := range t.Changes {
		if in, ok := inAt[c]; ok {
			visible = append(visible, c)
			chained = chained && in
		}
	}
	return visible, chained
}

// noSquash is the record of a task that needs no squash: nothing of it
// is left to move, or all of it is in @'s ancestry already; ok is false
// when it does need one.
func noSquash(w int, t *TaskState, visible []string, chained bool) (Event, bool) {
	switch {
	case len(visible) == 0:
		// Nothing left to move: an empty result (jj abandons empty
		// changes), or a squash a killed run did but did not record.
		return Event{Task: t.Num, Wave: w, Payload: Squashed{Reason: "no visible change left to squash"}}, true
	case chained:
		return Event{Task: t.Num, Wave: w, Payload: Squashed{Reason: "auto-chained: already in @'s ancestry"}}, true
	}
	return Event{}, false
}

// squash integrates one task. inAt maps its visible changes to whether
// they are already in @'s ancestry.
func (r *Runner) squash(ctx context.Context, w int, t *TaskState, inAt map[string]bool) error {
	visible, chained := visibleChanges(t, inAt)
	if ev, ok := noSquash(w, t, visible, chained); ok {
		if err := r.record(ev); err != nil {
			return err
		}
		if len(visible) == 0 {
			// Its squash began before a kill (one operation squashed the
			// whole wave, or this task alone).
			r.logf("task %d: squashed into @ already (no change of it is left to move)", t.Num)
		}
		return nil
	}
	err := r.Backend.Integrate(ctx, Produced{Workspace: t.Workspace, Change: t.Change, Changes: visible, Commit: visible[0]})
	conflicted := errors.Is(err, ErrConflict)
	if err != nil && !conflicted {
		return r.halt(ctx, fmt.Errorf("task %d: %w (resume retries)", t.Num, err))
	}
	crashPoint("squashing")
	if err := r.record(Event{Task: t.Num, Wave: w, Payload: Squashed{}}); err != nil {
		return err
	}
	r.logf("task %d: squashed into @", t.Num)
	crashPoint("squashed")
	if !conflicted {
		return nil // FanIn checks conflicts() once more at the end of the wave
	}
	return r.resolveConflicts(ctx, w, t)
}

// squashBatch integrates wave w's approved tasks ts (in merge order) in
// one VCS operation, when the backend can (BatchIntegrator) and that
// cannot conflict: every task that needs a squash starts from the same
// single base, no two of them touch a file in common, and none touches a
// file @ changed since that base. Otherwise it does nothing and reports
// false: the tasks are squashed one by one, smallest first, each checked
// for conflicts. After the batch @ is checked for conflicts once; when it
// has some anyway (a change rewritten after it was collected) the squash
// is taken back and it reports false, so the tasks go one by one and the
// one that conflicts is named; when it cannot be taken back (another
// operation came after it) the run halts naming the task whose files
// conflict.
//
// The ledger says the same as after one-by-one squashes, and a kill at
// any instant resumes the same way: every task is recorded squashing
// before the squash, which is one operation; a resumed fan-in finds the
// squashed tasks' changes gone and records them squashed.
func (r *Runner) squashBatch(ctx context.Context, w int, ts []*TaskState, inAt map[string]bool) (bool, error) {
	bi, ok := r.Backend.(BatchIntegrator)
	if !ok {
		return false, nil
	}
	var batch []*TaskState
	var ps []Produced
	var base []string
	owner := map[string]*TaskState{}
	for _, t := range ts {
		visible, chained := visibleChanges(t, inAt)
		if _, ok := noSquash(w, t, visible, chained); ok {
			continue
		}
		for _, c := range visible {
			if inAt[c] {
				return false, nil // part of it auto-chained: one by one
			}
		}
		if base == nil {
			base = t.Base
		}
		if len(t.Base) != 1 || !slices.Equal(t.Base, base) {
			return false, nil
		}
		for _, f := range t.Files {
			if owner[f] != nil {
				return false, nil
			}
			owner[f] = t
		}
		batch = append(batch, t)
		ps = append(ps, Produced{Workspace: t.Workspace, Change: t.Change, Changes: visible, Commit: visible[0]})
	}
	if len(batch) < 2 {
		return false, nil
	}
	// What @ changed since the tasks' base (wave 1: @'s own edits; later
	// waves start on @ itself). An error here only costs the fast path.
	changed, err := r.Backend.ChangedFiles(ctx, base[0])
	if err != nil {
		return false, nil
	}
	for _, f := range changed {
		if owner[f] != nil {
			return false, nil
		}
	}
	op, err := bi.IntegrateAll(ctx, ps)
	if err != nil {
		nums := make([]int, len(batch))
		for i, t := range batch {
			nums[i] = t.Num
		}
		return true, r.halt(ctx, fmt.Errorf("%s %s: %w (resume retries)", plural.Word(len(nums), "task", "tasks"), plural.Ints(nums), err))
	}
	if op != "" {
		if err := r.record(Event{Wave: w, Payload: SquashedTogether{Op: op}}); err != nil {
			return true, err
		}
	}
	crashPoint("squashing")
	// The authoritative check, once for the wave.
	conflicted, err := r.Backend.Conflicts(ctx)
	if err != nil {
		return true, fmt.Errorf("check @ for conflicts after squashing wave %d together: %w", w, err)
	}
	if len(conflicted) > 0 {
		// A change was rewritten after it was collected. Take the squash
		// back when nothing else changed the repository since, then
		// squash one by one, smallest first, to name the task.
		// The squash is known by the operation the ledger recorded for
		// it, never by the text of an operation.
		if undone, uerr := bi.UndoIntegrateAll(ctx, r.State().SquashOps[w]); uerr == nil && undone {
			r.logf("wave %d: squashed together, @ had conflicts in %s: taken back, squashing one by one", w, strings.Join(conflicted, ", "))
			return false, nil
		}
	}
	var events []Event
	for _, t := range ts {
		visible, chained := visibleChanges(t, inAt)
		ev, ok := noSquash(w, t, visible, chained)
		if !ok {
			ev = Event{Task: t.Num, Wave: w, Payload: Squashed{}}
		}
		events = append(events, ev)
	}
	// The first record alone, then the rest in one write: the "squashed"
	// crash point stays where one-by-one squashes put it, after the first
	// task's record.
	for i, part := range [][]Event{events[:1], events[1:]} {
		if len(part) == 0 {
			continue
		}
		if err := r.record(part...); err != nil {
			return true, err
		}
		for _, ev := range part {
			if p, _ := ev.Payload.(Squashed); p.Reason == "" {
				r.logf("task %d: squashed into @", ev.Task)
			}
		}
		if i == 0 {
			crashPoint("squashed")
		}
	}
	if len(conflicted) == 0 {
		return true, nil
	}
	// Not taken back (another operation came after it): halt naming the
	// task whose files conflict.
	return true, r.resolveConflictsOf(ctx, w, func(files []string) *TaskState {
		for _, f := range files {
			if t := owner[f]; t != nil {
				return t
			}
		}
		return batch[len(batch)-1]
	})
}

// checkKilledBatch does for wave w what a fan-in killed right after
// squashing the wave's tasks together (the squash recorded, no task
// recorded squashed since) did not: check @. It reports whether it took
// the squash back, so the tasks go one by one, as the killed fan-in
// would have: when @ has conflicts and the squash's recorded operation
// is still the newest one, nothing came after it, so restoring the
// operation before it undoes only the squash. With no conflicts the
// squashed state stands (the killed fan-in kept it too) and the fan-in
// goes on from it: the tasks' changes are gone from the log and are
// recorded squashed. When another operation came after the squash,
// nothing is taken back (it would undo that one too) and the fan-in
// stops on the conflicts as before the squash was recorded.
func (r *Runner) checkKilledBatch(ctx context.Context, w int) (bool, error) {
	op := r.State().SquashUnchecked[w]
	bi, ok := r.Backend.(BatchIntegrator)
	if op == "" || !ok {
		return false, nil
	}
	conflicted, err := r.Backend.Conflicts(ctx)
	if err != nil {
		return false, fmt.Errorf("check @ for conflicts after wave %d's tasks were squashed together: %w", w, err)
	}
	if len(conflicted) == 0 {
		return false, nil
	}
	undone, err := bi.UndoIntegrateAll(ctx, op)
	if err != nil {
		return false, fmt.Errorf("wave %d: take back the squash of its tasks together (operation %s): %w", w, short(op), err)
	}
	if !undone {
		r.logf("wave %d: squashed together before the fan-in was killed, @ has conflicts in %s; other operations came after the squash (operation %s): it stays, as restoring the operation before it would undo them too", w, strings.Join(conflicted, ", "), short(op))
		return false, nil
	}
	r.logf("wave %d: squashed together before the fan-in was killed, @ had conflicts in %s: taken back, squashing one by one", w, strings.Join(conflicted, ", "))
	return true, nil
}

// resolveConflicts checks @ after a squash: tasks.md conflicts are
// reconciled by the conflict package; anything else halts the run.
func (r *Runner) resolveConflicts(ctx context.Context, w int, t *TaskState) error {
	return r.resolveConflictsOf(ctx, w, func([]string) *TaskState { return t })
}

// resolveConflictsOf is resolveConflicts naming the task culprit picks
// from the conflicted files.
func (r *Runner) resolveConflictsOf(ctx context.Context, w int, culprit func(files []string) *TaskState) error {
	files, err := r.Backend.Conflicts(ctx)
	if err != nil {
		return fmt.Errorf("check @ for conflicts after squashing wave %d: %w", w, err)
	}
	if len(files) == 0 {
		return nil
	}
	t := culprit(files)
	var sides []string
	for _, f := range files {
		// Read (and rewrite) only a regular file inside the repository: a
		// conflicted path that is a link leading out is left to the halt,
		// which names it with the other sides.
		p, err := confine.RegularFile(r.Backend.TargetDir(), f)
		if err != nil {
			continue
		}
		data, err := regfile.Read(p)
		if err != nil {
			continue
		}
		parsed := conflict.Parse(data)
		if path.Base(f) == "tasks.md" {
			res := conflict.ResolveFile(parsed, conflict.Strategy{Kind: conflict.Tasks})
			if len(res.Left) == 0 && res.Changed {
				// Replaced whole or not at all (a kill mid-write must not
				// leave @'s tasks.md cut short), its mode kept.
				mode := fs.FileMode(0o644)
				if fi, err := os.Stat(p); err == nil {
					mode = fi.Mode().Perm()
				}
				if err := renameio.WriteFile(p, res.Content, mode); err != nil {
					return fmt.Errorf("write resolved %s: %w", f, err)
				}
				r.logf("task %d: %s conflict reconciled", t.Num, f)
				continue
			}
		}
		for _, h := range parsed.Hunks {
			for _, s := range h.Sides {
				l := s.Label.Text
				if strings.Contains(s.Label.Note, "destination") {
					l += " = @" + r.mergedSoFar(t.Num)
				}
				if l != "" && !slices.Contains(sides, l) {
					sides = append(sides, l)
				}
			}
		}
	}
	// Snapshot the resolved files and look again.
	remaining, err := r.Backend.Conflicts(ctx)
	if err != nil {
		return err
	}
	if len(remaining) == 0 {
		return r.record(Event{Task: t.Num, Wave: w, Payload: Resolved{Files: files}})
	}
	if err := r.record(Event{Task: t.Num, Wave: w, Payload: Conflicted{Files: remaining}}); err != nil {
		return err
	}
	sideText := ""
	if len(sides) > 0 {
		sideText = "; sides: " + strings.Join(sides, " vs ")
	}
	cmds := r.commands()
	return r.halt(ctx, exitcode.New(exitcode.Conflicts,
		"fan-in of task %d left conflicts in @: %s%s. Resolve them by editing the markers (then `jj resolve --list` is empty) and run `%s`; or `%s` to undo the run",
		t.Num, strings.Join(remaining, ", "), sideText, cmds.Resume, cmds.Abort))
}

// mergedSoFar says which tasks @ already holds, for conflict messages.
func (r *Runner) mergedSoFar(except int) string {
	st := r.State()
	var ns []int
	for _, t := range r.Doc.Header.Tasks {
		if ts := st.Tasks[t.Num]; ts.Squashed && t.Num != except {
			ns = append(ns, t.Num)
		}
	}
	if len(ns) == 0 {
		return ""
	}
	return " holding " + plural.Word(len(ns), "task ", "tasks ") + plural.Ints(ns)
}

// recheckConflict lets a resumed run continue once a person resolved
// the conflicts a fan-in left.
func (r *Runner) recheckConflict(ctx context.Context, t *TaskState) error {
	remaining, err := r.Backend.Conflicts(ctx)
	if err != nil {
		return err
	}
	if len(remaining) > 0 {
		return exitcode.New(exitcode.Conflicts, "@ still has conflicts from task %d's fan-in: %s; resolve them (edit the markers), then resume", t.Num, strings.Join(remaining, ", "))
	}
	return r.record(Event{Task: t.Num, Wave: t.Wave, Payload: Resolved{Reason: "resolved by a person"}})
}

var symbolRe = lazyregexp.New(`^\+\s*(?:export\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:func|type|class|def|fn|struct|enum|interface|trait|function|const|let|var)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`)

// waveSummary returns the prior-waves lines of the merged tasks: their
// files and the symbols the wave's added lines declare in them, read from
// one diff of @ against the baseline before the fan-in.
func (r *Runner) waveSummary(ctx context.Context, before string, ts []*TaskState) ([]string, error) {
	syms := map[string][]string{} // file -> symbols
	if before != "" && len(ts) > 0 {
		out, err := r.Backend.Diff(ctx, before)
		if err != nil {
			return nil, fmt.Errorf("summarize the wave: %w", err)
		}
		syms = addedSymbols(string(out))
	}
	var lines []string
	for _, t := range ts {
		line := fmt.Sprintf("- Task %d: %s", t.Num, t.Title)
		if len(t.Files) > 0 {
			line += " — files: " + strings.Join(t.Files, ", ")
		}
		var added []string
		for _, f := range t.Files {
			added = append(added, syms[f]...)
		}
		if len(added) > 20 {
			added = append(added[:20], "…")
		}
		if len(added) > 0 {
			line += "; added: " + strings.Join(added, ", ")
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// addedSymbols reads a git-style diff and returns, per file, the names
// its added lines declare (functions, types, classes, constants…).
func addedSymbols(diff string) map[string][]string {
	syms := map[string][]string{}
	file := ""
	for _, l := range strings.Split(diff, "\n") {
		if f, ok := strings.CutPrefix(l, "+++ b/"); ok {
			file = f
			continue
		}
		if strings.HasPrefix(l, "+++") {
			continue
		}
		if m := symbolRe.FindStringSubmatch(l); m != nil && !slices.Contains(syms[file], m[1]) {
			syms[file] = append(syms[file], m[1])
		}
	}
	return syms
}

func (r *Runner) appendPriorWaves(w int, lines []string) error {
	f, err := os.OpenFile(r.PriorWavesPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("prior-waves: %w", err)
	}
	defer f.Close()
	body := "(nothing merged)"
	if len(lines) > 0 {
		body = strings.Join(lines, "\n")
	}
	_, err = fmt.Fprintf(f, "## Wave %d (merged into @)\n%s\n\n", w, body)
	return err
}
