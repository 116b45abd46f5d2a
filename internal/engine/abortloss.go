package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
)

// maxListed bounds the files an abort refusal lists.
const maxListed = 20

// abortLoss returns nil when an abort loses nothing a person would miss,
// else an error (exit 5) listing it: the tasks a complete run merged, and
// the files of @ that differ from the newest @ the run recorded (a
// person's edits, a conflict resolution) — jj op restore undoes both.
func (r *Runner) abortLoss(ctx context.Context, st *State) error {
	files, err := r.Backend.ChangedFiles(ctx, st.Checkpoint)
	if errors.Is(err, jjx.ErrStale) {
		// Another workspace's operation rewrote @ (a worker's rewrite of
		// history): @'s files cannot be read, and the restore snapshots
		// them first, so `jj op log` keeps what they were.
		files, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("abort: compare @ with the run's last record of it (%s): %w", short(st.Checkpoint), err)
	}
	others, err := r.othersWork(ctx, st)
	if err != nil {
		return err
	}
	if !st.Complete && len(files) == 0 && len(others) == 0 {
		return nil
	}
	var merged []string
	for _, t := range r.Doc.Header.Tasks {
		if ts := st.Tasks[t.Num]; ts.Squashed && len(ts.Files) > 0 {
			merged = append(merged, fmt.Sprintf("task %d %s", t.Num, quoteTitle(t.Title)))
		}
	}
	mergedText := "none"
	if len(merged) > 0 {
		mergedText = strings.Join(merged, ", ")
	}
	var parts []string
	if st.Complete {
		parts = append(parts, fmt.Sprintf("run %s is complete: abort would undo the tasks it merged: %s", r.Doc.Header.RunID, mergedText))
	}
	if len(files) > 0 {
		lead := fmt.Sprintf("run %s: abort would lose", r.Doc.Header.RunID)
		if st.Complete {
			lead = "and"
		}
		parts = append(parts, fmt.Sprintf("%s edits made in @ since the run last recorded it: %s", lead, strings.Join(capList(files), ", ")))
	}
	if len(others) > 0 {
		lead := fmt.Sprintf("run %s: abort would hide", r.Doc.Header.RunID)
		if len(parts) > 0 {
			lead = "and hide"
		}
		parts = append(parts, fmt.Sprintf("%s work made since the run started that is none of its: %s", lead, strings.Join(capList(others), ", ")))
	}
	if !st.Complete && len(merged) > 0 {
		parts = append(parts, "and the tasks it merged: "+mergedText)
	}
	return exitcode.New(exitcode.NeedsChoice, "%s; re-run with --yes to abort anyway (jj op restore %s; `jj op log` keeps every operation, so the state before the abort stays reachable)",
		strings.Join(parts, "; "), short(r.Doc.Header.StartOp))
}

// capList is at most maxListed of items, then how many more there are.
func capList(items []string) []string {
	if len(items) <= maxListed {
		return items
	}
	return append(items[:maxListed:maxListed], fmt.Sprintf("… and %d more", len(items)-maxListed))
}

// othersWork is what others did in the repository since the run started
// (new changes that are none of its tasks', outside its workspaces):
// restoring its start operation would hide it. Nothing for a backend
// that cannot tell.
func (r *Runner) othersWork(ctx context.Context, st *State) ([]string, error) {
	b, ok := r.Backend.(Bystander)
	if !ok {
		return nil, nil
	}
	var workspaces, changes []string
	for _, t := range st.Tasks {
		if t.Workspace != "" {
			workspaces = append(workspaces, t.Workspace)
		}
		if t.Change != "" {
			changes = append(changes, t.Change)
		}
		changes = append(changes, t.Changes...)
	}
	slices.Sort(workspaces)
	slices.Sort(changes)
	others, err := b.WorkSince(ctx, r.Doc.Header.StartOp, workspaces, slices.Compact(changes))
	if err != nil {
		return nil, fmt.Errorf("abort: find work made since the run started (operation %s): %w", short(r.Doc.Header.StartOp), err)
	}
	return others, nil
}
