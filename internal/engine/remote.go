package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/gitx"
)

// Executors: where a worker's job runs. ExecutorLocal (the default) runs
// it here, in its workspace; ExecutorActions sends it to a GitHub Actions
// runner and brings its result back into the same workspace, where
// collect, the integrity check, review and integration take it exactly
// as they take a local worker's.
const (
	ExecutorLocal   = "local"
	ExecutorActions = "github-actions"
)

// Executors are the executor settings, in the order help lists them.
var Executors = []string{ExecutorLocal, ExecutorActions}

// Executor runs a worker's job away from this machine. Every method has
// the caller's deadline; none is interactive.
type Executor interface {
	// Dispatch starts job j remotely from base (a commit of the git store
	// gitDir, pushed under a name unique to run.Job) and returns the run.
	// A run already started for run.Job (a dispatch killed before its run
	// was recorded) is found and returned instead of starting another.
	Dispatch(ctx context.Context, gitDir string, j Job, run RemoteRun) (RemoteRun, error)
	// Follow waits until run completes and fetches its result into
	// gitDir. When ctx ends first it cancels the run and returns ctx's
	// error.
	Follow(ctx context.Context, gitDir string, run RemoteRun) (RemoteResult, error)
	// Clean deletes what Dispatch and Follow left on the remote and in
	// gitDir (the run's branches and refs); the run's result must be in
	// the workspace first.
	Clean(ctx context.Context, gitDir string, run RemoteRun) error
}

// RemoteRun is a job sent to an executor, as the ledger records it.
type RemoteRun struct {
	Job  string `json:"job"`  // unique: RUN_ID/TASK-ATTEMPT
	Base string `json:"base"` // the commit the job starts from
	ID   int64  `json:"run_id,omitempty"`
	URL  string `json:"url,omitempty"`
	// Conclusion is how the run ended (success, failure, cancelled,
	// timed_out), once it did.
	Conclusion string `json:"conclusion,omitempty"`
	Result     string `json:"result,omitempty"` // the commit it pushed
	Done       bool   `json:"-"`
	// Settled: its result was taken into the workspace (or there was
	// none to take); the next job of the task dispatches anew.
	Settled bool `json:"-"`
	// Resumed: read from the ledger by a later process, which may find
	// the run its dispatch started before it was recorded.
	Resumed bool `json:"-"`
}

// RemoteResult is how a run ended: its conclusion and the result it
// pushed, fetched into the git store ("" when it pushed none).
type RemoteResult struct {
	Conclusion string
	Commit     string
}

// The payloads of a job run by an executor (Event.Task, Event.Role: the
// job's).
type (
	// RemoteDispatching is recorded before the dispatch: a run killed
	// after it looks for the run by Job instead of dispatching again.
	RemoteDispatching struct {
		Job    string `flat:"job"`
		Commit string `flat:"commit"` // the base
	}
	// RemoteDispatched: the run RunID (at URL) works on the job.
	RemoteDispatched struct {
		RunID int64  `flat:"run_id"`
		URL   string `flat:"url"`
	}
	// RemoteFinished: the run ended with Conclusion; Commit is the
	// result it pushed ("" for none).
	RemoteFinished struct {
		RunID      int64  `flat:"run_id"`
		Conclusion string `flat:"status"`
		Commit     string `flat:"commit"`
	}
	// RemoteSettled: the run's result is in the workspace with its
	// report (or the run left nothing to take).
	RemoteSettled struct{}
)

func (RemoteDispatching) Kind() string { return EvRemoteDispatching }
func (RemoteDispatched) Kind() string  { return EvRemoteDispatched }
func (RemoteFinished) Kind() string    { return EvRemoteFinished }
func (RemoteDispatching) payload()     {}
func (RemoteDispatched) payload()      {}
func (RemoteFinished) payload()        {}
func (RemoteSettled) Kind() string     { return EvRemoteSettled }
func (RemoteSettled) payload()         {}

// Kinds of the executor's events.
const (
	EvRemoteDispatching = "remote-dispatching"
	EvRemoteDispatched  = "remote-dispatched"
	EvRemoteFinished    = "remote-finished"
	EvRemoteSettled     = "remote-settled"
)

// foldRemote applies an executor's event to task t.
func foldRemote(t *TaskState, e Event) {
	switch p := e.Payload.(type) {
	case RemoteDispatching:
		t.Remote = &RemoteRun{Job: p.Job, Base: p.Commit}
	case RemoteDispatched:
		if t.Remote != nil {
			t.Remote.ID, t.Remote.URL = p.RunID, p.URL
		}
	case RemoteFinished:
		if t.Remote != nil {
			t.Remote.Conclusion, t.Remote.Result, t.Remote.Done = p.Conclusion, p.Commit, true
		}
	case RemoteSettled:
		if t.Remote != nil {
			t.Remote.Settled = true
		}
	}
}

// runRemote runs job j of task t on the executor: dispatched (or, after
// a kill, the run already dispatched found and followed), followed to
// its end, its result checked and brought into the task's workspace, its
// report written where a local worker writes it, last (a report there is
// how a resume knows the result is in). The result is a local run's:
// exit 0 when the run succeeded, 1 when it failed or left nothing to
// take, -1 when ctx ended (the run cancelled) or something here failed.
func (r *Runner) runRemote(ctx context.Context, t *TaskState, j Job) Result {
	b, ok := r.Backend.(*JJBackend)
	if !ok {
		return Result{ExitCode: -1, Err: fmt.Errorf("task %d: the %s executor needs jj workspaces", t.Num, ExecutorActions)}
	}
	label := taskLabel(t.Num)
	if r.Progress != nil {
		r.Progress.Started(label, j.Role, j.Log)
		defer r.Progress.Finished(label, j.Role)
	}
	ev := func(p Payload) error { return r.record(Event{Task: t.Num, Wave: t.Wave, Role: j.Role, Payload: p}) }
	fail := func(code int, err error) Result {
		err = fmt.Errorf("task %d: %w", t.Num, err)
		appendLog(j.Log, "== "+err.Error()+"\n")
		r.logf("%v", err)
		return Result{ExitCode: code, Err: err}
	}
	gitDir, err := b.Repo.GitRoot(ctx)
	if err != nil {
		return fail(-1, fmt.Errorf("find the git store: %w", err))
	}
	ws := Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base}
	var run RemoteRun
	if cur := r.State().Tasks[t.Num].Remote; cur != nil && !cur.Settled {
		run = *cur // a killed run's: find it, follow it or take its result
		run.Resumed = true
	} else {
		base, err := b.Snapshot(ctx, ws)
		if err != nil {
			return fail(-1, fmt.Errorf("read the workspace's base: %w", err))
		}
		run = RemoteRun{Job: fmt.Sprintf("%s/%d-%d", r.Doc.Header.RunID, t.Num, t.Dispatched), Base: base}
		if err := ev(RemoteDispatching{Job: run.Job, Commit: base}); err != nil {
			return fail(-1, err)
		}
	}
	if run.ID == 0 {
		got, err := r.Executor.Dispatch(ctx, gitDir, j, run)
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Err: ctx.Err()}
		}
		if err != nil {
			return fail(-1, fmt.Errorf("dispatch to %s: %w", ExecutorActions, err))
		}
		run.ID, run.URL = got.ID, got.URL
		if err := ev(RemoteDispatched{RunID: run.ID, URL: run.URL}); err != nil {
			return fail(-1, err)
		}
		crashPoint("remote-dispatched")
	}
	if !run.Done {
		r.logf("%s: %s running on GitHub Actions: %s", label, j.Role, run.URL)
		appendLog(j.Log, fmt.Sprintf("== %s job %s: run %s\n", ExecutorActions, run.Job, run.URL))
		res, err := r.Executor.Follow(ctx, gitDir, run)
		if ctx.Err() != nil {
			// Follow cancelled the run: settled, so that a resume
			// dispatches the job anew, and its branches deleted.
			if ev(RemoteFinished{RunID: run.ID, Conclusion: "cancelled"}) == nil && ev(RemoteSettled{}) == nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				r.cleanRemote(cctx, gitDir, run)
			}
			r.logf("%s: run %s cancelled", label, run.URL)
			return Result{ExitCode: -1, Err: ctx.Err()}
		}
		if err != nil {
			return fail(-1, fmt.Errorf("follow run %s: %w", run.URL, err))
		}
		run.Conclusion, run.Result, run.Done = res.Conclusion, res.Commit, true
		if err := ev(RemoteFinished{RunID: run.ID, Conclusion: res.Conclusion, Commit: res.Commit}); err != nil {
			return fail(-1, err)
		}
		appendLog(j.Log, fmt.Sprintf("== run %s concluded %s; result %s\n", run.URL, res.Conclusion, orNone(res.Commit)))
	}
	out := r.takeRemote(ctx, b, gitDir, ws, j, run)
	if out.Err != nil {
		appendLog(j.Log, "== "+out.Err.Error()+"\n")
		r.logf("%v", out.Err)
	}
	if out.ExitCode == -1 {
		return out // nothing settled: a resume takes it again
	}
	if err := ev(RemoteSettled{}); err != nil {
		return fail(-1, err)
	}
	r.cleanRemote(ctx, gitDir, run)
	return out
}

// cleanRemote deletes the run's branches and refs; a failure is said,
// not fatal: the result is in the workspace.
func (r *Runner) cleanRemote(ctx context.Context, gitDir string, run RemoteRun) {
	if err := r.Executor.Clean(ctx, gitDir, run); err != nil {
		r.logf("%s: %v (delete its specstack/ branches by hand)", run.Job, err)
	}
}

// takeRemote checks a finished run's result and brings it into the
// workspace, then writes its report.
func (r *Runner) takeRemote(ctx context.Context, b *JJBackend, gitDir string, ws Workspace, j Job, run RemoteRun) Result {
	exit := 0
	if run.Conclusion != "success" {
		exit = 1
	}
	if run.Result == "" {
		return Result{ExitCode: 1, Err: fmt.Errorf("task %s: run %s concluded %s and pushed no result", j.Task, run.URL, run.Conclusion)}
	}
	c, err := (&gitx.Repo{Dir: gitDir}).Commit(ctx, run.Result)
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("task %s: read run %s's result: %w", j.Task, run.URL, err)}
	}
	// A claim checked: the result is one commit on the base it was
	// given, or it is not taken.
	if len(c.Parents) != 1 || c.Parents[0] != run.Base {
		return Result{ExitCode: 1, Err: fmt.Errorf("task %s: run %s pushed %s, which is not one commit on the job's base %s: not taken", j.Task, run.URL, short(run.Result), short(run.Base))}
	}
	if err := b.TakeTree(ctx, ws, gitDir, run.Base, run.Result); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("task %s: bring run %s's result into %s: %w", j.Task, run.URL, ws.Path, err)}
	}
	if err := renameio.WriteFile(j.Report, []byte(c.Body), 0o644); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("task %s: write run %s's report: %w", j.Task, run.URL, err)}
	}
	return Result{ExitCode: exit}
}

// TakeTree makes workspace ws's files hold what commit, a commit of the
// backing git store grown from base, changed: the diff applied in the
// workspace's directory, as if a worker had written it there (jj
// snapshots it as it snapshots a worker's edits).
func (b *JJBackend) TakeTree(ctx context.Context, ws Workspace, gitDir, base, commit string) error {
	if _, err := b.logIn(ctx, ws, "@"); err != nil {
		return err
	}
	return (&gitx.Repo{Dir: gitDir}).ApplyDiff(ctx, base, commit, ws.Path)
}

// appendLog adds line to the job's log, best effort: the log is for
// people.
func appendLog(path, line string) {
	if path == "" {
		return
	}
	f, err := openLog(path)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return short(s)
}
