package actionsworker

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/repo"
)

// Command is the workflow verb every binary has (workflow init): one
// workflow, whichever binary dispatches it.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "workflow",
		Usage: "the GitHub Actions workflow that runs a worker on a runner",
		Subcommands: []*cli.Command{{
			Name:  "init",
			Usage: "write " + Path + " for the configured worker",
			Description: `Writes the workflow_dispatch workflow a remote worker runs on GitHub Actions:
it checks out the job's base, installs the worker's agent CLI from npm at the
version specstack is tested with (nothing for a command worker), runs the
worker with the SPECSTACK_* variables the local executor sets, the brief
arriving as a dispatch input written to $RUNNER_TEMP (never the work tree or a
command line; at most about 64 KB), the agent's credentials from repository
secrets, and pushes its commit, the report as its message, to the job's
result branch under specstack/. jj kaisen, jj openspec and gh specstack write
the same file. Commit the file and push it to the default branch.

The worker is --worker, else [worker] command; [worker] timeout, when set,
bounds the job (plus 15 minutes). A file that exists and differs is left
alone (exit 5) unless --force; --dry-run prints the workflow and writes
nothing.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "worker", Usage: "the worker the runner runs: a preset (claude, codex) or a shell `CMD` (default: [worker] command)"},
				&cli.StringSliceFlag{Name: "runs-on", Usage: "a runner `LABEL` (repeatable; default " + DefaultRunsOn + ")"},
				&cli.BoolFlag{Name: "force", Usage: "replace a workflow file that differs"},
				&cli.BoolFlag{Name: "dry-run", Usage: "print the workflow, write nothing"},
			},
			Action: workflowInit,
		}},
	}
}

// workflowInitResult is what `workflow init` did.
type workflowInitResult struct {
	Path      string   `json:"path"`
	Worker    string   `json:"worker"`
	Secrets   []string `json:"secrets"`
	Written   bool     `json:"written"`
	Unchanged bool     `json:"unchanged"`
	DryRun    bool     `json:"dry_run"`
	Content   string   `json:"content,omitempty"` // with --dry-run
}

func workflowInit(c *cli.Context) error {
	if args, err := cliapp.Args(c); err != nil {
		return err
	} else if len(args) > 0 {
		return exitcode.New(exitcode.Usage, "workflow init takes no arguments (got %q)", strings.Join(args, " "))
	}
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	r, err := repo.Find(dir)
	if err != nil {
		return exitcode.Wrap(exitcode.Missing, err)
	}
	cfg, err := config.Load(r.Root)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	o := Options{Worker: cfg.Worker.Command, RunsOn: c.StringSlice("runs-on")}
	if len(o.RunsOn) == 0 {
		o.RunsOn = cfg.Executor.RunsOn
	}
	if c.IsSet("worker") {
		o.Worker = c.String("worker")
	}
	if cfg.Worker.Timeout != "" {
		d, err := config.ParseTimeout(cfg.Worker.Timeout)
		if err != nil {
			return exitcode.New(exitcode.Usage, "[worker] timeout = %q: %v", cfg.Worker.Timeout, err)
		}
		o.Timeout = d
	}
	content, err := Render(o)
	if errors.As(err, new(*WorkerError)) {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("workflow init: %w", err))
	}
	if err != nil {
		return err
	}
	res := workflowInitResult{Path: Path, Worker: strings.TrimSpace(o.Worker), Secrets: Secrets(o.Worker), DryRun: c.Bool("dry-run")}
	if res.Secrets == nil {
		res.Secrets = []string{}
	}
	if res.DryRun {
		res.Content = string(content)
		return cliapp.Emit(c, res, func(w io.Writer) error {
			_, err := w.Write(content)
			return err
		})
	}
	wr, err := Write(r.Root, content, c.Bool("force"))
	if errors.As(err, new(*ExistsError)) {
		return exitcode.Wrap(exitcode.NeedsChoice, err)
	}
	if err != nil {
		return err
	}
	res.Written, res.Unchanged = !wr.Unchanged, wr.Unchanged
	return cliapp.Emit(c, res, res.writeText)
}

func (r workflowInitResult) writeText(w io.Writer) error {
	var b strings.Builder
	if r.Unchanged {
		fmt.Fprintf(&b, "%s is up to date (worker %s)\n", r.Path, r.Worker)
	} else {
		fmt.Fprintf(&b, "wrote %s (worker %s)\n", r.Path, r.Worker)
	}
	b.WriteString("next: commit it and push it to the default branch")
	if len(r.Secrets) > 0 {
		fmt.Fprintf(&b, "; set one of the repository secrets %s", strings.Join(r.Secrets, ", "))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
