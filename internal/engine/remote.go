package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/exitcode"
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

// ParseExecutor checks an executor setting (from --executor or
// [executor] kind) and returns what a run records: "" for local.
func ParseExecutor(v string) (string, error) {
	switch v {
	case "", ExecutorLocal:
		return "", nil
	case ExecutorActions:
		return v, nil
	}
	return "", exitcode.New(exitcode.Usage, "executor %q: give one of %s (--executor or [executor] kind)", v, strings.Join(Executors, ", "))
}

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
	// Cancel cancels the run of run.Job (found by its title when run.ID
	// is 0: a dispatch killed before its id was recorded); a run already
	// over, or none, is not an error.
	Cancel(ctx context.Context, run RemoteRun) error
	// Abandon is Clean for a job given up on (abort) before its result
	// was taken: its base branch is deleted, but a result it pushed, a
	// worker's work nothing took, stays on the remote, and its branch is
	// returned ("" when there is none).
	Abandon(ctx context.Context, gitDir string, run RemoteRun) (string, error)
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
	Runner     string `json:"runner,omitempty"`
	Result     string `json:"result,omitempty"` // the commit it pushed
	// Answer is the commit holding the worker's answer (RemoteAnswerFile:
	// a fixer's verdicts), "" when it wrote none.
	Answer string `json:"-"`
	// LogEnd is the last line of the job's log of a run that did not
	// succeed ("" when it did, or the log could not be read).
	LogEnd string `json:"-"`
	Done   bool   `json:"-"`
	// Settled: its result was taken into the workspace (or there was
	// none to take); the next job of the task dispatches anew.
	Settled bool `json:"-"`
	// Resumed: read from the ledger by a later process, which may find
	// the run its dispatch started before it was recorded.
	Resumed bool `json:"-"`
}

// RemoteResult is how a run ended: its conclusion, the runner that ran
// it ("" when none took it) and the result it pushed, fetched into the
// git store ("" when it pushed none).
type RemoteResult struct {
	Conclusion string
	Runner     string
	Commit     string
	Answer     string // the commit holding its answer, "" for none
	// Log is the end of the job's log of a run that did not succeed
	// ("" when the executor could not read it).
	Log string
}

// RemoteAnswerFile is the worker's answer's name in its answer commit.
const RemoteAnswerFile = "answer.json"

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
		Runner     string `flat:"reason"` // the runner that ran it
		// Answer is the commit holding the worker's answer ("": none).
		Answer string `flat:"answer"`
		// LogEnd is the last line of the job's log of a run that did not
		// succeed ("" when it did, or the log could not be read).
		LogEnd string `flat:"log_end"`
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

// FoldRemote applies an executor's event (payload p) to a job's run
// cur (nil before its dispatch) and returns the run.
func FoldRemote(cur *RemoteRun, p Payload) *RemoteRun {
	switch p := p.(type) {
	case RemoteDispatching:
		return &RemoteRun{Job: p.Job, Base: p.Commit}
	case RemoteDispatched:
		if cur != nil {
			cur.ID, cur.URL = p.RunID, p.URL
		}
	case RemoteFinished:
		if cur != nil {
			cur.Conclusion, cur.Runner, cur.Result, cur.Answer, cur.LogEnd, cur.Done = p.Conclusion, p.Runner, p.Commit, p.Answer, p.LogEnd, true
		}
	case RemoteSettled:
		if cur != nil {
			cur.Settled = true
		}
	}
	return cur
}

// TakeUp is the events that make a run taken up after its job's ledger
// entry was reset (a ticket cut again at the same base) hold it again.
func (r RemoteRun) TakeUp() []Payload {
	ps := []Payload{RemoteDispatching{Job: r.Job, Commit: r.Base}}
	if r.ID != 0 {
		ps = append(ps, RemoteDispatched{RunID: r.ID, URL: r.URL})
	}
	if r.Done {
		ps = append(ps, RemoteFinished{RunID: r.ID, Conclusion: r.Conclusion, Commit: r.Result, Runner: r.Runner, Answer: r.Answer, LogEnd: r.LogEnd})
	}
	return ps
}

// RemoteJob is one job on an executor, with the hooks of the workflow
// that runs it: its ledger and its log. Every workflow with workers
// (jj-kaisen's tasks, gh-specstack's tickets) runs remote jobs through
// it.
type RemoteJob struct {
	Executor Executor
	GitDir   string // the git store holding Base and, after, the result
	Dir      string // the workspace the result is brought into
	Label    string // "task 3", "#12": for messages
	// Prior is the job's run the ledger holds; unless nil or settled, it
	// is taken up (found, followed or taken) instead of dispatching anew.
	Prior *RemoteRun
	// Job and Base are a fresh dispatch's: its unique id and the commit
	// it starts from (Dir's checkout).
	Job, Base string
	// Take brings the result (one commit on base, in GitDir) into Dir;
	// nil applies its diff to Dir's files (gitx.ApplyDiff). Either sees a
	// result already taken (a kill before the ledger said so) and does
	// not take it twice.
	// job is the run's RemoteRun.Job.
	Take func(ctx context.Context, job, base, result string) error
	// Record appends one of the executor's events (RemoteDispatching,
	// ...) to the workflow's ledger.
	Record func(Payload) error
	Logf   func(format string, args ...any)
}

// Run runs job j on the executor: dispatched (or a run already
// dispatched found and followed), followed to its end, its result
// checked and brought into Dir, its report written where a local worker
// writes it, last (a report there is how a resume knows the result is
// in). The result is a local run's: exit 0 when the run succeeded, 1
// when it failed or left nothing to take, -1 when ctx ended (the run is
// cancelled) or something here failed (nothing settled: a resume takes
// the run up again).
func (rj RemoteJob) Run(ctx context.Context, j Job) Result {
	fail := func(code int, err error) Result {
		err = fmt.Errorf("%s: %w", rj.Label, err)
		appendLog(j.Log, "== "+err.Error()+"\n")
		rj.Logf("%v", err)
		return Result{ExitCode: code, Err: err}
	}
	var run RemoteRun
	if rj.Prior != nil && !rj.Prior.Settled {
		run = *rj.Prior // a killed run's: find it, follow it or take its result
		run.Resumed = true
	} else {
		run = RemoteRun{Job: rj.Job, Base: rj.Base}
		if err := rj.Record(RemoteDispatching{Job: run.Job, Commit: run.Base}); err != nil {
			return fail(-1, err)
		}
	}
	if run.ID == 0 {
		got, err := rj.Executor.Dispatch(ctx, rj.GitDir, j, run)
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Err: ctx.Err()}
		}
		if err != nil {
			return fail(-1, fmt.Errorf("dispatch to %s: %w", ExecutorActions, err))
		}
		run.ID, run.URL = got.ID, got.URL
		if err := rj.Record(RemoteDispatched{RunID: run.ID, URL: run.URL}); err != nil {
			return fail(-1, err)
		}
		crashPoint("remote-dispatched")
	}
	if !run.Done {
		rj.Logf("%s: %s running on GitHub Actions: %s", rj.Label, j.Role, run.URL)
		appendLog(j.Log, fmt.Sprintf("== %s job %s: run %s\n", ExecutorActions, run.Job, run.URL))
		res, err := rj.Executor.Follow(ctx, rj.GitDir, run)
		if ctx.Err() != nil {
			// Follow cancelled the run: settled, so that a resume
			// dispatches the job anew, and its branches deleted.
			if rj.Record(RemoteFinished{RunID: run.ID, Conclusion: "cancelled"}) == nil && rj.Record(RemoteSettled{}) == nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				rj.clean(cctx, run)
			}
			rj.Logf("%s: run %s cancelled", rj.Label, run.URL)
			return Result{ExitCode: -1, Err: ctx.Err()}
		}
		if err != nil {
			return fail(-1, fmt.Errorf("follow run %s: %w", run.URL, err))
		}
		run.Conclusion, run.Runner, run.Result, run.Answer, run.LogEnd, run.Done = res.Conclusion, res.Runner, res.Commit, res.Answer, lastLine(res.Log), true
		if err := rj.Record(RemoteFinished{RunID: run.ID, Conclusion: res.Conclusion, Commit: res.Commit, Runner: res.Runner, Answer: res.Answer, LogEnd: run.LogEnd}); err != nil {
			return fail(-1, err)
		}
		crashPoint("remote-finished")
		appendLog(j.Log, fmt.Sprintf("== run %s concluded %s; result %s\n", run.URL, res.Conclusion, orNone(res.Commit)))
		if res.Log != "" {
			appendLog(j.Log, "== the end of the run's job log:\n"+strings.TrimRight(res.Log, "\n")+"\n")
		}
	}
	out := rj.take(ctx, j, run)
	out.Remote = true
	if out.Err != nil {
		appendLog(j.Log, "== "+out.Err.Error()+"\n")
		rj.Logf("%v", out.Err)
	}
	if out.ExitCode == -1 {
		return out // nothing settled: a resume takes it again
	}
	crashPoint("remote-taken")
	if err := rj.Record(RemoteSettled{}); err != nil {
		return fail(-1, err)
	}
	rj.clean(ctx, run)
	return out
}

// take checks a finished run's result and brings it into Dir (Take),
// then writes its report.
func (rj RemoteJob) take(ctx context.Context, j Job, run RemoteRun) Result {
	exit := 0
	if run.Conclusion != "success" {
		exit = 1
	}
	if run.Result == "" {
		err := fmt.Errorf("%s: run %s concluded %s and pushed no result", rj.Label, run.URL, run.Conclusion)
		if run.LogEnd != "" {
			err = fmt.Errorf("%w; its log ends: %q", err, run.LogEnd)
		}
		return Result{ExitCode: 1, Err: err}
	}
	g := &gitx.Repo{Dir: rj.GitDir}
	c, err := g.Commit(ctx, run.Result)
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s: read run %s's result: %w", rj.Label, run.URL, err)}
	}
	// A claim checked: the result is one commit on the base it was
	// given, or it is not taken.
	if len(c.Parents) != 1 || c.Parents[0] != run.Base {
		return Result{ExitCode: 1, Err: fmt.Errorf("%s: run %s pushed %s, which is not one commit on the job's base %s: not taken", rj.Label, run.URL, short(run.Result), short(run.Base))}
	}
	take := rj.Take
	if take == nil {
		take = func(ctx context.Context, _, base, result string) error { return g.ApplyDiff(ctx, base, result, rj.Dir) }
	}
	if err := take(ctx, run.Job, run.Base, run.Result); err != nil {
		code := -1 // something here failed: a resume takes the run up again
		if errors.As(err, new(*gitx.MetadataError)) || errors.As(err, new(*gitx.ApplyError)) {
			// The worker's result is refused, as a local worker's would
			// be, or the workspace changed under it: kept, for a person.
			code = 1
		}
		return Result{ExitCode: code, Err: fmt.Errorf("%s: run %s's result: %w", rj.Label, run.URL, err)}
	}
	if err := rj.answer(ctx, g, j, run); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s: run %s's answer: %w", rj.Label, run.URL, err)}
	}
	if err := renameio.WriteFile(j.Report, []byte(c.Body), 0o644); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s: write run %s's report: %w", rj.Label, run.URL, err)}
	}
	return Result{ExitCode: exit}
}

// answer writes the worker's answer where a local worker writes it
// (j.Answer), or removes what is there when the run brought none.
func (rj RemoteJob) answer(ctx context.Context, g *gitx.Repo, j Job, run RemoteRun) error {
	if j.Answer == "" {
		return nil
	}
	if run.Answer == "" {
		if err := os.Remove(j.Answer); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	blobs, err := g.ReadFiles(ctx, []string{run.Answer + ":" + RemoteAnswerFile})
	if err != nil {
		return err
	}
	if len(blobs) != 1 || !blobs[0].Exists || blobs[0].Type != "blob" {
		// Not what the workflow pushes: no answer, as if the worker
		// wrote none (a fixer's findings go to the next reviewer).
		rj.Logf("%s: run %s's answer commit %s holds no %s: taken as no answer", rj.Label, run.URL, short(run.Answer), RemoteAnswerFile)
		run.Answer = ""
		return rj.answer(ctx, g, j, run)
	}
	return renameio.WriteFile(j.Answer, blobs[0].Content, 0o644)
}

// clean deletes the run's branches and refs; a failure is said, not
// fatal: the result is in the workspace.
func (rj RemoteJob) clean(ctx context.Context, run RemoteRun) {
	if err := rj.Executor.Clean(ctx, rj.GitDir, run); err != nil {
		rj.Logf("%s: %v (delete its specstack/ branches by hand)", rj.Label, err)
	}
}

// runRemote runs task t's job j on the run's executor.
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
	rj := RemoteJob{Executor: r.Executor, Dir: t.Path, Label: label, Prior: r.State().Tasks[t.Num].Remote, Logf: r.logf,
		Job:    fmt.Sprintf("%s/%d-%d", r.Doc.Header.RunID, t.Num, t.Dispatched),
		Record: func(p Payload) error { return r.record(Event{Task: t.Num, Wave: t.Wave, Role: j.Role, Payload: p}) }}
	var err error
	if rj.GitDir, err = b.Repo.GitRoot(ctx); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s: find the git store: %w", label, err)}
	}
	rj.Take = b.Taker(Workspace{Name: t.Workspace, Path: t.Path}, rj.GitDir)
	if rj.Prior == nil || rj.Prior.Settled {
		if rj.Base, err = b.Snapshot(ctx, Workspace{Name: t.Workspace, Path: t.Path, Base: t.Base}); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("%s: read the workspace's base: %w", label, err)}
		}
	}
	return rj.Run(ctx, j)
}

// TakeBranch is the temporary git branch through which job's result is
// imported into jj (JJBackend.TakeResult).
func TakeBranch(job string) string { return "specstack-take/" + job }

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

// lastLine is log's last line that is not blank, trimmed, at most 200
// bytes of it.
func lastLine(log string) string {
	lines := strings.Split(strings.TrimRight(log, " \t\r\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = "…" + strings.ToValidUTF8(last[len(last)-200:], "")
	}
	return last
}
