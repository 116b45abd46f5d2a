package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ensureWorkspace checks task n's recorded workspace against the ledger
// (a worker may have committed on top of its base) and, when it is not
// what the ledger says, releases it and provisions it again. It reports
// whether it did.
func (r *Runner) ensureWorkspace(ctx context.Context, n int, ws Workspace) (bool, error) {
	problem, err := r.Backend.Check(ctx, ws, false)
	if err != nil {
		return false, fmt.Errorf("task %d: %w", n, err)
	}
	if problem == "" {
		return false, nil
	}
	if want := r.Backend.Path(ws.Name); ws.Path != want && fileExists(ws.Path) {
		return false, fmt.Errorf("task %d: workspace directory %s is outside %s: remove it yourself, then resume", n, ws.Path, filepath.Dir(want))
	}
	if err := r.Backend.Release(ctx, ws); err != nil {
		return false, fmt.Errorf("task %d: %w", n, err)
	}
	if _, err := r.Backend.Provision(ctx, ws); err != nil {
		return false, fmt.Errorf("task %d: %w", n, err)
	}
	r.logf("task %d: workspace %s %s: forgotten, removed and provisioned again", n, ws.Name, problem)
	return true, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func shortAll(ids []string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = short(id)
	}
	return strings.Join(s, ", ")
}
