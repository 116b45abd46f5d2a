package engine

import (
	"context"
	"errors"
	"fmt"
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
	if !st.Complete && len(files) == 0 {
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
		listed := files
		if len(listed) > maxListed {
			listed = append(listed[:maxListed:maxListed], fmt.Sprintf("… and %d more", len(files)-maxListed))
		}
		lead := fmt.Sprintf("run %s: abort would lose", r.Doc.Header.RunID)
		if st.Complete {
			lead = "and"
		}
		parts = append(parts, fmt.Sprintf("%s edits made in @ since the run last recorded it: %s", lead, strings.Join(listed, ", ")))
		if !st.Complete && len(merged) > 0 {
			parts = append(parts, "and the tasks it merged: "+mergedText)
		}
	}
	return exitcode.New(exitcode.NeedsChoice, "%s; re-run with --yes to abort anyway (jj op restore %s; `jj op log` keeps every operation, so the state before the abort stays reachable)",
		strings.Join(parts, "; "), short(r.Doc.Header.StartOp))
}
