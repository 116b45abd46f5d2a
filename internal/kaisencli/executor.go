package kaisencli

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/jjx"
)

var executorFlag = &cli.StringFlag{Name: "executor", Usage: "where implementers and fixers run (reviewers run here): local (default, or [executor] kind) or github-actions (a runner per job, through .github/workflows/specstack-worker.yml; see gh specstack workflow init)"}

// executorOption is --executor over [executor] kind, checked.
func executorOption(c *cli.Context, cfg *config.Config) (string, error) {
	return engine.ParseExecutor(pick(c.String("executor"), cfg.Executor.Kind))
}

// connectExecutor returns the executor the run's options name (nil:
// local), checked before anything is made.
func connectExecutor(ctx context.Context, repo *jjx.Repo, ledgerDir string, o engine.Options) (engine.Executor, error) {
	return actionsworker.Connect(ctx, repo, engine.ArtifactsDir(ledgerDir), o)
}
