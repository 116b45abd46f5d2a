package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
)

// WaveTasks returns the task numbers of wave w (1-based).
func (r *Runner) WaveTasks(w int) ([]int, error) {
	if w < 1 || w > len(r.Doc.Header.Waves) {
		return nil, exitcode.New(exitcode.Usage, "no wave %d: the run has %d waves", w, len(r.Doc.Header.Waves))
	}
	return r.Doc.Header.Waves[w-1], nil
}

// CheckWaveReady fails unless every earlier wave is fanned in.
func (r *Runner) CheckWaveReady(w int) error {
	st := r.State()
	for i := 1; i < w; i++ {
		if !st.FannedIn[i] {
			return exitcode.New(exitcode.Usage, "wave %d is not fanned in yet: wave %d starts from its result (run `fan-in --wave %d` first)", i, w, i)
		}
	}
	return nil
}

// Provision creates a workspace for every task of wave w that has none:
// wave 1 on @- (each task a sibling of @), later waves on @ (where the
// earlier waves were squashed). Idempotent: a workspace left by a killed
// run is adopted.
func (r *Runner) Provision(ctx context.Context, w int) error {
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	base := r.Doc.Header.Parents
	if w > 1 {
		// The orchestrating workspace's @ as it is now: where the earlier
		// waves were squashed (a person may have moved to a new change
		// since the run started).
		base = []string{r.Doc.Header.Target}
		unprovisioned := func(n int) bool { return st.Tasks[n].Workspace == "" && !st.Tasks[n].Squashed }
		if slices.ContainsFunc(nums, unprovisioned) {
			ids, err := r.Repo.ChangeIDs(ctx, "@")
			if err != nil || len(ids) != 1 {
				return fmt.Errorf("wave %d: read @ to start from: %v", w, err)
			}
			base = ids
		}
	}
	var existing map[string]bool
	var events []Event
	for _, n := range nums {
		t := st.Tasks[n]
		if t.Workspace != "" || t.Squashed {
			continue
		}
		name := r.WorkspaceName(n)
		path := filepath.Join(r.Pool.Dir, name)
		if _, err := r.Pool.Provision(ctx, name, fmt.Sprintf("Task %d: %s", n, t.Title), base...); err != nil {
			// A killed run may have made it without recording it: adopt it.
			if existing == nil {
				wss, lerr := r.Repo.Workspaces(ctx)
				if lerr != nil {
					return fmt.Errorf("task %d: %w", n, err)
				}
				existing = map[string]bool{}
				for _, ws := range wss {
					existing[ws.Name] = true
				}
			}
			switch {
			case existing[name] && fileExists(path):
			case !existing[name] && fileExists(path) && strings.HasPrefix(path, r.Pool.Dir):
				// A directory without a workspace: what a killed
				// `jj workspace add` leaves. Ours to replace.
				os.RemoveAll(path)
				if _, err := r.Pool.Provision(ctx, name, fmt.Sprintf("Task %d: %s", n, t.Title), base...); err != nil {
					return fmt.Errorf("task %d: %w", n, err)
				}
			default:
				return fmt.Errorf("task %d: %w", n, err)
			}
		}
		// Recorded together below: a workspace made before a crash is
		// adopted by name when provisioning runs again.
		events = append(events, Event{Kind: EvProvisioned, Task: n, Wave: w, Workspace: name, Path: path, Base: base})
		r.logf("task %d: workspace %s at %s", n, name, path)
	}
	if len(events) > 0 {
		if err := r.record(events...); err != nil {
			return err
		}
	}
	crashPoint("provisioned")
	return nil
}
