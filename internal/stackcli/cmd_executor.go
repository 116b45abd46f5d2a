package stackcli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/refname"
	"github.com/specstack/specstack/stack"
)

// executorCommand is the plumbing jj-kaisen and jj-openspec run their
// remote jobs through (actionsworker.Process): they link no HTTP client,
// so each step that talks to GitHub is a run of gh-specstack. Hidden:
// people use --executor github-actions, not these.
func executorCommand() *cli.Command {
	gitDir := &cli.StringFlag{Name: "git-dir", Required: true, Usage: "the git store holding the job's commits"}
	job := &cli.StringFlag{Name: "job", Required: true, Usage: "the job's unique `ID` (RUN/TASK-ATTEMPT)"}
	run := &cli.Int64Flag{Name: "run", Required: true, Usage: "the workflow run's `ID`"}
	ref := &cli.StringFlag{Name: "ref", Usage: "the branch whose workflow runs (default: [executor] ref, else the default branch)"}
	return &cli.Command{
		Name:   "executor",
		Usage:  "plumbing of --executor github-actions for jj kaisen and jj openspec",
		Hidden: true,
		Subcommands: []*cli.Command{
			{Name: "check", Usage: "the workflow is on its ref and the token may dispatch it",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "worker", Required: true}, ref},
				Action: executorCheck},
			{Name: "dispatch", Usage: "push the job's base and dispatch the workflow (or find the run a killed dispatch started)",
				Flags: []cli.Flag{gitDir, job, ref, &cli.StringFlag{Name: "base", Required: true}, &cli.StringFlag{Name: "role", Required: true},
					&cli.StringFlag{Name: "task"}, &cli.StringFlag{Name: "worker", Required: true}, &cli.StringFlag{Name: "brief-file", Required: true},
					&cli.StringFlag{Name: "findings-file", Usage: "a fixer's findings"},
					&cli.BoolFlag{Name: "resumed"}},
				Action: executorDispatch},
			{Name: "follow", Usage: "follow a run to its end and fetch its result (and the end of its job log when it failed)",
				Flags:  []cli.Flag{gitDir, job, run, &cli.DurationFlag{Name: "timeout"}},
				Action: executorFollow},
			{Name: "cancel", Usage: "cancel a run (by its id, else the job's run found by title)",
				Flags: []cli.Flag{&cli.Int64Flag{Name: "run", Usage: "the workflow run's `ID`"}, &cli.StringFlag{Name: "job", Usage: "the job's `ID`, to find its run"}, ref}, Action: executorCancel},
			{Name: "clean", Usage: "delete a job's branches and fetched result",
				Flags: []cli.Flag{gitDir, job}, Action: executorClean},
			{Name: "abandon", Usage: "delete a job's base branch, keeping a result it pushed (named)",
				Flags: []cli.Flag{gitDir, job}, Action: executorAbandon},
		},
	}
}

// actionsExecutor connects to the repository's GitHub and settles the
// workflow and its ref.
func actionsExecutor(c *cli.Context, worker string) (*stack.ActionsExecutor, error) {
	env, s, err := connect(c)
	if err != nil {
		return nil, err
	}
	e := &stack.ActionsExecutor{Client: env.GH, Workflow: actionsworker.File, Ref: c.String("ref"), Remote: "origin", Worker: worker}
	if s.cfg != nil {
		if s.cfg.Executor.Workflow != "" {
			e.Workflow = s.cfg.Executor.Workflow
		}
		if e.Ref == "" {
			e.Ref = s.cfg.Executor.Ref
		}
		if s.cfg.Executor.Poll != "" {
			e.Poll, _ = time.ParseDuration(s.cfg.Executor.Poll) // checked by config.Load
		}
	}
	if e.Ref == "" {
		r, err := env.GH.Repository(c.Context)
		if err != nil {
			return nil, githubExit(err)
		}
		e.Ref = r.DefaultBranch
	}
	return e, nil
}

func executorCheck(c *cli.Context) error {
	e, err := actionsExecutor(c, c.String("worker"))
	if err != nil {
		return err
	}
	r, err := e.Client.Repository(c.Context)
	if err != nil {
		return githubExit(err)
	}
	path := ".github/workflows/" + e.Workflow
	if r.Permissions != nil && !r.Permissions.Push {
		return exitcode.New(exitcode.Missing, "--executor %s: the token cannot dispatch workflows of %s (it needs write access)", engine.ExecutorActions, e.Client.T.Repo())
	}
	ok, err := e.Client.FileExists(c.Context, path, e.Ref)
	if err != nil {
		return githubExit(err)
	}
	if !ok {
		return exitcode.New(exitcode.Missing, "--executor %s: %s is not on %s of %s: run gh specstack workflow init --worker %q, then commit it and push it there",
			engine.ExecutorActions, path, e.Ref, e.Client.T.Repo(), c.String("worker"))
	}
	res := actionsworker.Checked{Repo: e.Client.T.Repo(), Ref: e.Ref, Workflow: path}
	return cliapp.Emit(c, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s on %s of %s can be dispatched\n", res.Workflow, res.Ref, res.Repo)
		return err
	})
}

func executorDispatch(c *cli.Context) error {
	e, err := actionsExecutor(c, c.String("worker"))
	if err != nil {
		return err
	}
	brief, err := os.ReadFile(c.String("brief-file"))
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("read the brief: %w", err))
	}
	var findings []byte
	if f := c.String("findings-file"); f != "" {
		if findings, err = os.ReadFile(f); err != nil {
			return exitcode.Wrap(exitcode.Usage, fmt.Errorf("read the findings: %w", err))
		}
	}
	run := engine.RemoteRun{Job: c.String("job"), Base: c.String("base"), Resumed: c.Bool("resumed")}
	if err := checkJob(run.Job); err != nil {
		return err
	}
	got, err := e.DispatchJob(c.Context, c.String("git-dir"), c.String("role"), c.String("task"), string(brief), string(findings), run)
	if err != nil {
		return githubExit(err)
	}
	res := struct {
		RunID int64  `json:"run_id"`
		URL   string `json:"url"`
	}{got.ID, got.URL}
	return cliapp.Emit(c, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "dispatched %s: %s\n", run.Job, res.URL)
		return err
	})
}

func executorFollow(c *cli.Context) error {
	e, err := actionsExecutor(c, "")
	if err != nil {
		return err
	}
	e.Timeout = c.Duration("timeout")
	run := engine.RemoteRun{Job: c.String("job"), ID: c.Int64("run")}
	if err := checkJob(run.Job); err != nil {
		return err
	}
	got, err := e.Follow(c.Context, c.String("git-dir"), run)
	if err != nil {
		return githubExit(err)
	}
	res := struct {
		Conclusion string `json:"conclusion"`
		Runner     string `json:"runner"`
		Commit     string `json:"commit"`
		Answer     string `json:"answer,omitempty"`
		Log        string `json:"log,omitempty"` // the end of a failed run's job log
	}{got.Conclusion, got.Runner, got.Commit, got.Answer, got.Log}
	return cliapp.Emit(c, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "run %d concluded %s; result %s\n", run.ID, res.Conclusion, res.Commit)
		if err == nil && res.Log != "" {
			_, err = fmt.Fprintf(w, "the end of its job log:\n%s\n", strings.TrimRight(res.Log, "\n"))
		}
		return err
	})
}

func executorCancel(c *cli.Context) error {
	e, err := actionsExecutor(c, "")
	if err != nil {
		return err
	}
	run := engine.RemoteRun{ID: c.Int64("run"), Job: c.String("job")}
	if run.ID == 0 {
		if err := checkJob(run.Job); err != nil {
			return err
		}
	}
	if err := e.Cancel(c.Context, run); err != nil {
		return githubExit(err)
	}
	return cliapp.Emit(c, struct{}{}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "run of %s cancelled\n", cmp.Or(run.Job, fmt.Sprint(run.ID)))
		return err
	})
}

// jobExecutor is the executor and the job --job names, checked, for
// clean and abandon.
func jobExecutor(c *cli.Context) (*stack.ActionsExecutor, engine.RemoteRun, error) {
	run := engine.RemoteRun{Job: c.String("job")}
	if err := checkJob(run.Job); err != nil {
		return nil, run, err
	}
	e, err := actionsExecutor(c, "")
	return e, run, err
}

func executorClean(c *cli.Context) error {
	e, run, err := jobExecutor(c)
	if err != nil {
		return err
	}
	if err := e.Clean(c.Context, c.String("git-dir"), run); err != nil {
		return err
	}
	return cliapp.Emit(c, struct{}{}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "cleaned %s\n", run.Job)
		return err
	})
}

func executorAbandon(c *cli.Context) error {
	e, run, err := jobExecutor(c)
	if err != nil {
		return err
	}
	kept, err := e.Abandon(c.Context, c.String("git-dir"), run)
	if err != nil {
		return err
	}
	res := struct {
		Kept string `json:"kept_branch"`
	}{kept}
	return cliapp.Emit(c, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "abandoned %s; kept: %s\n", run.Job, cmp.Or(kept, "nothing"))
		return err
	})
}

// checkJob refuses a job id that is not RUN/JOB, two plain names, or
// whose branches (specstack/RUN/JOB/base, /result and /answer, the only
// branches the executor pushes or deletes) git would refuse.
func checkJob(job string) error {
	run, id, ok := strings.Cut(job, "/")
	if !ok || run == "" || id == "" || strings.Contains(id, "/") {
		return exitcode.New(exitcode.Usage, "--job %q: give RUN/JOB, two plain names", job)
	}
	base, result := actionsworker.Branches(job)
	for _, b := range []string{base, result, actionsworker.AnswerBranch(job)} {
		if err := refname.Check(b); err != nil {
			return exitcode.New(exitcode.Usage, "--job %q: branch %s is not a valid name: %v", job, b, err)
		}
	}
	return nil
}
