package kaisencli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
)

var executorFlag = &cli.StringFlag{Name: "executor", Usage: "where implementers run: local (default, or [executor] kind) or github-actions (a runner per task, through .github/workflows/specstack-worker.yml; see gh specstack workflow init)"}

// executorOption is --executor over [executor] kind, checked.
func executorOption(c *cli.Context, cfg *config.Config) (string, error) {
	v := pick(c.String("executor"), cfg.Executor.Kind)
	if v == "" || v == engine.ExecutorLocal {
		return "", nil
	}
	if !slices.Contains(engine.Executors, v) {
		return "", exitcode.New(exitcode.Usage, "executor %q: give one of %s (--executor or [executor] kind)", v, strings.Join(engine.Executors, ", "))
	}
	return v, nil
}

// connectExecutor returns the executor the run's options name: nil for
// local; for github-actions gh-specstack's, checked (the workflow on its
// ref, a token that may dispatch it, an origin for the runners to clone)
// before anything is made.
func connectExecutor(ctx context.Context, repo *jjx.Repo, ledgerDir string, o engine.Options) (engine.Executor, error) {
	if o.Executor == "" || o.Executor == engine.ExecutorLocal {
		return nil, nil
	}
	if o.Executor != engine.ExecutorActions {
		return nil, exitcode.New(exitcode.Usage, "executor %q: this jj-kaisen knows %s", o.Executor, strings.Join(engine.Executors, ", "))
	}
	if strings.TrimSpace(o.Worker) == "" {
		return nil, engine.NeedWorker(o.Worker, repo.Root)
	}
	remotes, err := repo.GitRemotes(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the git remotes: %w", err)
	}
	if remotes["origin"] == "" {
		return nil, exitcode.New(exitcode.Missing, "--executor %s: the repository has no origin remote for the runners to clone (jj git remote add origin URL)", o.Executor)
	}
	p := &actionsworker.Process{Dir: repo.Root, Worker: o.Worker, Artifacts: engine.ArtifactsDir(ledgerDir),
		Timeout: engine.WorkerTimeout(o.Timeout) + actionsworker.SetupTime}
	if _, err := p.Check(ctx); err != nil {
		return nil, err
	}
	return p, nil
}
