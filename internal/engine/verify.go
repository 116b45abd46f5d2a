package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// checkWorkspaces checks recorded workspaces against the ledger (a
// worker may have committed on top of its base) and says, for each, how
// it differs ("" when it is as recorded): in one go where the backend can
// (BatchChecker), else one by one.
func (r *Runner) checkWorkspaces(ctx context.Context, wss []newWorkspace) ([]string, error) {
	if len(wss) == 0 {
		return nil, nil
	}
	if bc, ok := r.Backend.(BatchChecker); ok {
		all := make([]Workspace, len(wss))
		for i, w := range wss {
			all[i] = w.ws
		}
		problems, err := bc.CheckAll(ctx, all, false)
		if err != nil {
			return nil, fmt.Errorf("check the recorded workspaces: %w", err)
		}
		return problems, nil
	}
	problems := make([]string, len(wss))
	for i, w := range wss {
		p, err := r.Backend.Check(ctx, w.ws, false)
		if err != nil {
			return nil, fmt.Errorf("task %d: %w", w.task, err)
		}
		problems[i] = p
	}
	return problems, nil
}

// remakeWorkspace releases task n's recorded workspace, which is not what
// the ledger says (problem says how), and provisions it again.
func (r *Runner) remakeWorkspace(ctx context.Context, n int, ws Workspace, problem string) error {
	if want := r.Backend.Path(ws.Name); ws.Path != want && fileExists(ws.Path) {
		return fmt.Errorf("task %d: workspace directory %s is outside %s: remove it yourself, then resume", n, ws.Path, filepath.Dir(want))
	}
	if err := r.Backend.Release(ctx, ws); err != nil {
		return fmt.Errorf("task %d: %w", n, err)
	}
	if _, err := r.Backend.Provision(ctx, ws); err != nil {
		return fmt.Errorf("task %d: %w", n, err)
	}
	r.logf("task %d: workspace %s %s: forgotten, removed and provisioned again", n, ws.Name, problem)
	return nil
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
