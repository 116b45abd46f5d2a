package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/jjx"
)

// recorded is a task workspace as the ledger records it (or as Provision
// is about to record it).
type recorded struct {
	Task int
	Name string
	Path string
	Base []string // change IDs the working copy must sit on
}

// workspaceProblem says how the workspace differs from what the ledger
// says: "" when it is as recorded. known holds the names jj lists. Strict
// (a workspace no worker has used) wants the working copy's parents to be
// exactly the base; otherwise the base must be among the ancestors of the
// working copy's parents (a worker may have committed on top of it).
func (r *Runner) workspaceProblem(ctx context.Context, ws recorded, known map[string]bool, strict bool) (string, error) {
	if !known[ws.Name] {
		return "is unknown to jj", nil
	}
	if !fileExists(ws.Path) {
		return fmt.Sprintf("has no directory at %s", ws.Path), nil
	}
	t := &TaskState{Path: ws.Path, Workspace: ws.Name}
	at, err := r.workspaceRange(ctx, t, "@")
	if err != nil || len(at) != 1 {
		return fmt.Sprintf("has a working copy jj cannot read (%v)", err), nil
	}
	parents := at[0].ParentChangeIDs
	if sameSet(parents, ws.Base) {
		return "", nil
	}
	if !strict && len(ws.Base) > 0 {
		in, err := r.Repo.At(ws.Path).Contained(ctx, union(ws.Base), "::@-")
		if err != nil {
			return "", fmt.Errorf("task %d: check workspace %s against its base: %w", ws.Task, ws.Name, err)
		}
		if !slices.ContainsFunc(ws.Base, func(b string) bool { return !in[b] }) {
			return "", nil
		}
	}
	var names []string
	for i, id := range parents {
		if i < len(at[0].Parents) && jjx.IsRoot(at[0].Parents[i]) {
			names = append(names, "root()")
		} else {
			names = append(names, short(id))
		}
	}
	return fmt.Sprintf("is not on its base (its working copy's parent is %s, the ledger says %s)", strings.Join(names, ", "), shortAll(ws.Base)), nil
}

// reprovision forgets the workspace, removes its directory and creates it
// again on its base.
func (r *Runner) reprovision(ctx context.Context, ws recorded, known map[string]bool, message string) error {
	if known[ws.Name] {
		if err := r.Repo.WorkspaceForget(ctx, ws.Name); err != nil {
			return fmt.Errorf("task %d: forget workspace %s: %w", ws.Task, ws.Name, err)
		}
		delete(known, ws.Name)
	}
	if fileExists(ws.Path) {
		if !strings.HasPrefix(ws.Path, r.Pool.Dir+string(filepath.Separator)) {
			return fmt.Errorf("task %d: workspace directory %s is outside %s: remove it yourself, then resume", ws.Task, ws.Path, r.Pool.Dir)
		}
		if err := os.RemoveAll(ws.Path); err != nil {
			return fmt.Errorf("task %d: remove workspace directory: %w", ws.Task, err)
		}
	}
	if _, err := r.Pool.Provision(ctx, ws.Name, message, ws.Base...); err != nil {
		return fmt.Errorf("task %d: %w", ws.Task, err)
	}
	known[ws.Name] = true
	return nil
}

// ensureWorkspace checks a workspace against the ledger and, when it is
// not exactly what the ledger says, forgets, removes and provisions it
// again. It reports whether it did.
func (r *Runner) ensureWorkspace(ctx context.Context, ws recorded, known map[string]bool, strict bool, message string) (bool, error) {
	problem, err := r.workspaceProblem(ctx, ws, known, strict)
	if err != nil || problem == "" {
		return false, err
	}
	if err := r.reprovision(ctx, ws, known, message); err != nil {
		return false, err
	}
	r.logf("task %d: workspace %s %s: forgotten, removed and provisioned again", ws.Task, ws.Name, problem)
	return true, nil
}

// knownWorkspaces lists the names jj knows.
func (r *Runner) knownWorkspaces(ctx context.Context) (map[string]bool, error) {
	wss, err := r.Repo.Workspaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	known := map[string]bool{}
	for _, ws := range wss {
		known[ws.Name] = true
	}
	return known, nil
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
