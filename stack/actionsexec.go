package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/stack/ghapi"
)

// ActionsExecutor is engine.ExecutorActions' GitHub side (gh specstack
// executor runs it for jj-kaisen): each job's base pushed to the
// remote as specstack/JOB/base, the workflow dispatched with the job's
// inputs, its run followed with conditional requests, its result branch
// (specstack/JOB/result) fetched into the git store. It never force-pushes
// and touches no branch outside specstack/.
type ActionsExecutor struct {
	Client *ghapi.Client
	// Workflow is the workflow file's name (actionsworker.File); Ref the branch whose
	// copy of it runs (the repository's default branch).
	Workflow, Ref string
	// Remote is the git remote the runner clones (origin).
	Remote string
	// Worker is the worker setting the workflow was written for.
	Worker string
	// Poll is the wait between two looks at a run.
	Poll time.Duration
	// Timeout bounds a run from its dispatch: the worker's timeout and
	// the job's own steps. 0: none but the caller's.
	Timeout time.Duration
}

// resultRef is where a job's result is fetched in the git store: a ref
// jj does not import (under refs/specstack/), so the result and the
// workspace commit it grew from never enter jj's view as pushed work
// (JJBackend.TakeResult imports the result through a local branch).
func resultRef(job string) string { return "refs/specstack/results/" + job }

// answerRef is where a job's answer is fetched in the git store.
func answerRef(job string) string { return "refs/specstack/answers/" + job }

// dispatch is the dispatch of job: its inputs, and its run's title.
func (e *ActionsExecutor) dispatch(role, task, job, brief, findings string) ghapi.Dispatch {
	runID, jobID, _ := strings.Cut(job, "/")
	base, result := actionsworker.Branches(job)
	d := ghapi.Dispatch{Workflow: e.Workflow, Ref: e.Ref, Title: actionsworker.Title(runID, jobID, jobID),
		Inputs: map[string]string{
			actionsworker.InputRunID: runID, actionsworker.InputJobID: jobID, actionsworker.InputDispatchID: jobID,
			actionsworker.InputRole: role, actionsworker.InputTask: task, actionsworker.InputBaseRef: base,
			actionsworker.InputResultBranch: result, actionsworker.InputWorker: e.Worker, actionsworker.InputBrief: brief,
		}}
	if findings != "" {
		d.Inputs[actionsworker.InputFindings] = findings
	}
	return d
}

// actionsExecutorFor is the executor of a run recorded with
// --executor github-actions: this repository's GitHub, the workflow and
// its ref as configured (the default branch when not), the run's worker.
func actionsExecutorFor(ctx context.Context, env *Env, h RunHeader, cfg config.ExecutorConfig, timeout time.Duration) (*ActionsExecutor, error) {
	e := &ActionsExecutor{Client: env.GH, Workflow: cmp.Or(cfg.Workflow, actionsworker.File), Ref: cfg.Ref, Remote: "origin",
		Worker: h.Worker, Timeout: timeout + actionsworker.SetupTime}
	if cfg.Poll != "" {
		e.Poll, _ = time.ParseDuration(cfg.Poll) // checked by config.Load
	}
	if e.Ref == "" {
		r, err := env.GH.Repository(ctx)
		if err != nil {
			return nil, fmt.Errorf("--executor %s: read the repository: %w", engine.ExecutorActions, err)
		}
		e.Ref = r.DefaultBranch
	}
	return e, nil
}

// Dispatch is engine.Executor's: DispatchJob with j's role, task and
// brief.
func (e *ActionsExecutor) Dispatch(ctx context.Context, gitDir string, j engine.Job, run engine.RemoteRun) (engine.RemoteRun, error) {
	brief, err := actionsworker.Brief(j)
	if err != nil {
		return run, err
	}
	findings, err := actionsworker.Findings(j)
	if err != nil {
		return run, err
	}
	return e.DispatchJob(ctx, gitDir, j.Role, j.Task, brief, findings, run)
}

// DispatchJob pushes run.Base as the job's base branch and dispatches
// the workflow; a run of the job already dispatched (a dispatch killed
// before its run was recorded: run.Resumed) is found by its title and
// returned.
func (e *ActionsExecutor) DispatchJob(ctx context.Context, gitDir, role, task, brief, findings string, run engine.RemoteRun) (engine.RemoteRun, error) {
	d := e.dispatch(role, task, run.Job, brief, findings)
	if run.Resumed {
		if found, err := e.find(ctx, d); err != nil {
			return run, err
		} else if found.ID != 0 {
			run.ID, run.URL = found.ID, found.HTMLURL
			return run, nil
		}
	}
	g := &gitx.Repo{Dir: gitDir}
	url, err := g.RemoteURL(ctx, e.Remote)
	if err != nil {
		return run, fmt.Errorf("read remote %s: %w", e.Remote, err)
	}
	// To the URL, not the remote's name: no remote-tracking ref is made,
	// so jj never sees the workspace's commit as pushed (immutable).
	base, _ := actionsworker.Branches(run.Job)
	if _, err := g.Push(ctx, url, base, run.Base); err != nil {
		return run, fmt.Errorf("push the job's base: %w", err)
	}
	got, err := e.Client.DispatchWorkflow(ctx, d)
	if err != nil {
		return run, err
	}
	run.ID, run.URL = got.ID, got.HTMLURL
	if run.URL == "" {
		run.URL = got.URL
	}
	return run, nil
}

// find looks once for a run of dispatch d made in the last day: a
// dispatch killed before its run was recorded may have started one.
func (e *ActionsExecutor) find(ctx context.Context, d ghapi.Dispatch) (ghapi.WorkflowRun, error) {
	runs, err := e.Client.RunsTitled(ctx, d, time.Now().Add(-24*time.Hour))
	switch {
	case err != nil:
		return ghapi.WorkflowRun{}, fmt.Errorf("look for a run already dispatched: %w", err)
	case len(runs) > 1:
		return ghapi.WorkflowRun{}, &ghapi.RunNotFoundError{Workflow: d.Workflow, Ref: d.Ref, Title: d.Title, Found: len(runs)}
	case len(runs) == 1:
		return runs[0], nil
	}
	return ghapi.WorkflowRun{}, nil
}

// Follow polls the run until it completes, then fetches its result
// branch. When ctx ends first, or Timeout passes, it cancels the run.
func (e *ActionsExecutor) Follow(ctx context.Context, gitDir string, run engine.RemoteRun) (engine.RemoteResult, error) {
	fctx := ctx
	if e.Timeout > 0 {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
	}
	w := e.Client.WatchRun(run.ID)
	poll := e.Poll
	if poll <= 0 {
		poll = actionsworker.DefaultPoll
	}
	for {
		r, _, err := w.Poll(fctx)
		if err == nil && r.Completed() {
			res, err := e.fetch(ctx, gitDir, run, r.Conclusion)
			if err == nil {
				res.Runner, res.Log = e.job(ctx, run.ID, r.Conclusion != "success")
			}
			return res, err
		}
		if fctx.Err() != nil {
			e.CancelRun(run.ID)
			if ctx.Err() != nil {
				return engine.RemoteResult{}, ctx.Err()
			}
			return e.fetch(ctx, gitDir, run, "timed_out")
		}
		if err != nil {
			return engine.RemoteResult{}, err
		}
		t := time.NewTimer(poll)
		select {
		case <-fctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// job names the runner that ran run id's job, for status, and with
// withLog the end of the job's log, for the task's log ("" for what
// GitHub does not say: neither is needed to take the run's result).
func (e *ActionsExecutor) job(ctx context.Context, id int64, withLog bool) (runner, log string) {
	jobs, err := e.Client.Jobs(ctx, id)
	if err != nil || len(jobs) == 0 {
		return "", ""
	}
	if withLog {
		log, _ = e.Client.JobLog(ctx, jobs[0].ID, LogTail)
	}
	return jobs[0].RunnerName, log
}

// LogTail is how much of a failed run's job log is kept: its end.
const LogTail = 4 << 10

// Cancel is engine.Executor's: the run of run.Job cancelled, found by
// its title when its id was never recorded.
func (e *ActionsExecutor) Cancel(ctx context.Context, run engine.RemoteRun) error {
	id := run.ID
	if id == 0 {
		found, err := e.find(ctx, e.dispatch("", "", run.Job, "", ""))
		if err != nil || found.ID == 0 {
			return err
		}
		id = found.ID
	}
	return e.CancelRun(id)
}

// CancelRun asks GitHub to cancel run id, within its own deadline (the
// caller's may have ended); a run already over is not an error.
func (e *ActionsExecutor) CancelRun(id int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Client.CancelRun(ctx, id); err != nil && !errors.Is(err, ghapi.ErrRunCompleted) {
		return err
	}
	return nil
}

func (e *ActionsExecutor) fetch(ctx context.Context, gitDir string, run engine.RemoteRun, conclusion string) (engine.RemoteResult, error) {
	_, result := actionsworker.Branches(run.Job)
	g := &gitx.Repo{Dir: gitDir}
	url, err := g.RemoteURL(ctx, e.Remote)
	if err != nil {
		return engine.RemoteResult{}, fmt.Errorf("read remote %s: %w", e.Remote, err)
	}
	// The answer is pushed with the result, in one atomic push.
	answer := actionsworker.AnswerBranch(run.Job)
	got, err := g.FetchBranches(ctx, url, map[string]string{result: resultRef(run.Job), answer: answerRef(run.Job)})
	if err != nil {
		return engine.RemoteResult{}, err
	}
	sha := got[result]
	if sha == "" {
		answer = ""
	} else {
		answer = got[answer]
	}
	return engine.RemoteResult{Conclusion: conclusion, Commit: sha, Answer: answer}, nil
}

// Clean deletes the job's branches on the remote and its fetched ref.
func (e *ActionsExecutor) Clean(ctx context.Context, gitDir string, run engine.RemoteRun) error {
	g := &gitx.Repo{Dir: gitDir}
	url, err := g.RemoteURL(ctx, e.Remote)
	if err != nil {
		return fmt.Errorf("read remote %s: %w", e.Remote, err)
	}
	base, result := actionsworker.Branches(run.Job)
	if err := g.DeleteRemoteBranches(ctx, url, base, result, actionsworker.AnswerBranch(run.Job)); err != nil {
		return err
	}
	if err := g.DeleteRef(ctx, resultRef(run.Job)); err != nil {
		return err
	}
	return g.DeleteRef(ctx, answerRef(run.Job))
}

// Abandon is Clean for a run given up on (gh specstack abort): the job's
// base branch is deleted, but a result it pushed (a worker's work that
// nothing took) stays on the remote with its answer, and its branch is
// returned; "" when there is none.
func (e *ActionsExecutor) Abandon(ctx context.Context, gitDir string, run engine.RemoteRun) (string, error) {
	g := &gitx.Repo{Dir: gitDir}
	url, err := g.RemoteURL(ctx, e.Remote)
	if err != nil {
		return "", fmt.Errorf("read remote %s: %w", e.Remote, err)
	}
	base, result := actionsworker.Branches(run.Job)
	heads, err := g.RemoteHeads(ctx, url, result)
	if err != nil {
		return "", err
	}
	if err := g.DeleteRemoteBranches(ctx, url, base); err != nil {
		return "", err
	}
	if _, ok := heads[result]; ok {
		return result, nil
	}
	return "", nil
}
