package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/workflow/apply"
)

// AbortPipeline ends the pipeline in env's ledger: the workspaces of the
// members that did not land (their own and their workers') are
// snapshotted (what was edited in them stays in their changes), forgotten
// and removed, and the run is recorded as aborted. Landed members, their
// bookmarks and pull requests stay; nothing is restored, since other
// members' landings came after any one member's start. It holds the
// project lock throughout.
func AbortPipeline(ctx context.Context, env *apply.Env) (*PipelineRun, error) {
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	p, ok, err := ReadPipeline(env.Dir)
	if err != nil {
		return nil, err
	}
	if !ok || p.Aborted {
		return nil, exitcode.New(exitcode.Usage, "no unfinished pipeline in the ledger (%s)", env.Dir)
	}
	live := map[string]bool{}
	wss, err := env.Repo.Workspaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the workspaces: %w", err)
	}
	for _, w := range wss {
		live[w.Name] = true
	}
	wsDir := p.workspacesDir(env.Repo.Root)
	var errs []error
	// drop releases a workspace through the backend it was provisioned
	// by, as every job's workspace is released.
	drop := func(b *engine.JJBackend, name, path string) {
		if name == "" {
			return
		}
		if err := oneFolder(name); err != nil {
			errs = append(errs, err)
			return
		}
		if live[name] {
			// Snapshot first: edits a person made there while fixing the
			// member stay in its change (visible in jj log), not lost
			// with the folder.
			if _, err := os.Stat(path); path != "" && err == nil {
				if _, err := env.Repo.At(path).WorkingCopy(ctx); err != nil {
					errs = append(errs, fmt.Errorf("snapshot workspace %s before forgetting it (kept): %w", name, err))
					return
				}
			}
		}
		if err := b.Release(ctx, engine.Workspace{Name: name, Path: path}); err != nil {
			errs = append(errs, err)
			return
		}
		// A folder recorded elsewhere than the backend's (an older
		// ledger) goes too, when it is inside the workspaces folder.
		if path != "" && path != b.Path(name) {
			if err := removeWorkspaceDir(wsDir, path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	members := p.memberBackend(env.Repo)
	for _, m := range p.Members {
		if p.outcome(m).Landed() {
			continue
		}
		if d, ok, err := engine.Load(m.Dir); err == nil && ok {
			tasks := engine.BackendOf(env.Repo, d)
			for _, t := range engine.Fold(d).Tasks {
				drop(tasks, t.Workspace, t.Path)
			}
		}
		drop(members, m.Workspace, m.Path)
		fmt.Fprintf(env.Out, "pipeline: %s not landed: its workspaces removed (their changes stay in `jj log`)\n", m.Change)
	}
	if err := errors.Join(errs...); err != nil {
		return p, err
	}
	p.Aborted = true
	return p, writePipeline(env.Dir, p)
}
