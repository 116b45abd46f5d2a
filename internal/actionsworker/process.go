package actionsworker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/jjx"
)

// Process is engine.ExecutorActions for jj-kaisen and jj-openspec, which
// link no HTTP client (it made each of their runs a third longer): each
// step runs `gh-specstack executor VERB --json` in the repository, which
// talks to GitHub, as jj-openspec publishes through gh-specstack.
type Process struct {
	Dir    string // the repository
	Worker string // the worker setting the workflow was written for
	Ref    string // the branch whose workflow runs (Check says)
	// Timeout bounds a run from its dispatch: the worker's timeout and
	// the job's own steps.
	Timeout time.Duration
	// Artifacts is where the briefs sent are kept, outside every work
	// tree.
	Artifacts string
}

// stepTimeout bounds every step but follow: a push and a few requests.
const stepTimeout = 5 * time.Minute

// Checked is `gh specstack executor check`'s report.
type Checked struct {
	Repo     string `json:"repo"`
	Ref      string `json:"ref"`
	Workflow string `json:"workflow"`
}

// Check asks gh-specstack whether the worker workflow is on its ref and
// the token may dispatch it, and settles the ref; it fails (exit 7) with
// what to do, before anything is made.
func (p *Process) Check(ctx context.Context) (Checked, error) {
	var c Checked
	err := forge.RunWithin(ctx, stepTimeout, p.Dir, nil, nil, &c, "executor check", "--worker", p.Worker)
	if err == nil {
		p.Ref = c.Ref
	}
	return c, err
}

// dispatched is `gh specstack executor dispatch`'s report.
type dispatched struct {
	RunID int64  `json:"run_id"`
	URL   string `json:"url"`
}

// Dispatch writes the job's brief (for an agent preset, its prompt) to a
// file and has gh-specstack push the base and dispatch the workflow.
func (p *Process) Dispatch(ctx context.Context, gitDir string, j engine.Job, run engine.RemoteRun) (engine.RemoteRun, error) {
	brief, err := Brief(j)
	if err != nil {
		return run, err
	}
	findings, err := Findings(j)
	if err != nil {
		return run, err
	}
	briefFile, err := p.tempFile("remote-brief-*.md", brief)
	if err != nil {
		return run, err
	}
	defer os.Remove(briefFile)
	args := []string{"--git-dir", gitDir, "--job", run.Job, "--base", run.Base, "--role", j.Role, "--task", j.Task,
		"--worker", p.Worker, "--ref", p.Ref, "--brief-file", briefFile}
	if findings != "" {
		f, err := p.tempFile("remote-findings-*.md", findings)
		if err != nil {
			return run, err
		}
		defer os.Remove(f)
		args = append(args, "--findings-file", f)
	}
	if run.Resumed {
		args = append(args, "--resumed")
	}
	var d dispatched
	if err := forge.RunWithin(ctx, stepTimeout, p.Dir, nil, nil, &d, "executor dispatch", args...); err != nil {
		return run, err
	}
	run.ID, run.URL = d.RunID, d.URL
	return run, nil
}

// tempFile writes text to a new file in the artifacts folder (outside
// every work tree) for gh-specstack to read, and returns its path.
func (p *Process) tempFile(pattern, text string) (string, error) {
	dir := p.Artifacts
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("write a file for the runner: %w", err)
	}
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write a file for the runner: %w", werr)
	}
	return filepath.Clean(f.Name()), nil
}

// followed is `gh specstack executor follow`'s report.
type followed struct {
	Conclusion string `json:"conclusion"`
	Runner     string `json:"runner"`
	Commit     string `json:"commit"`
	Answer     string `json:"answer"`
	Log        string `json:"log"`
}

// Follow has gh-specstack follow the run and fetch its result; when ctx
// ends first the follow is stopped and the run cancelled.
func (p *Process) Follow(ctx context.Context, gitDir string, run engine.RemoteRun) (engine.RemoteResult, error) {
	var f followed
	args := []string{"--git-dir", gitDir, "--job", run.Job, "--run", strconv.FormatInt(run.ID, 10), "--timeout", p.Timeout.String()}
	err := forge.RunWithin(ctx, p.Timeout+stepTimeout, p.Dir, nil, nil, &f, "executor follow", args...)
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stepTimeout)
		defer cancel()
		_ = p.Cancel(cctx, run)
		return engine.RemoteResult{}, ctx.Err()
	}
	if err != nil {
		return engine.RemoteResult{}, err
	}
	return engine.RemoteResult{Conclusion: f.Conclusion, Runner: f.Runner, Commit: f.Commit, Answer: f.Answer, Log: f.Log}, nil
}

// Cancel has gh-specstack cancel the job's run.
func (p *Process) Cancel(ctx context.Context, run engine.RemoteRun) error {
	var none struct{}
	args := []string{"--job", run.Job, "--ref", p.Ref}
	if run.ID != 0 {
		args = append(args, "--run", strconv.FormatInt(run.ID, 10))
	}
	return forge.RunWithin(ctx, stepTimeout, p.Dir, nil, nil, &none, "executor cancel", args...)
}

// Clean has gh-specstack delete the job's branches and fetched ref.
func (p *Process) Clean(ctx context.Context, gitDir string, run engine.RemoteRun) error {
	var none struct{}
	return forge.RunWithin(ctx, stepTimeout, p.Dir, nil, nil, &none, "executor clean", "--git-dir", gitDir, "--job", run.Job)
}

// Abandon has gh-specstack delete the job's base branch, keeping a
// result it pushed, and returns that result's branch.
func (p *Process) Abandon(ctx context.Context, gitDir string, run engine.RemoteRun) (string, error) {
	var got struct {
		Kept string `json:"kept_branch"`
	}
	err := forge.RunWithin(ctx, stepTimeout, p.Dir, nil, nil, &got, "executor abandon", "--git-dir", gitDir, "--job", run.Job)
	return got.Kept, err
}

// Connect returns the executor options o name: nil for local; for
// github-actions gh-specstack's (Process), checked — an origin for the
// runners to clone, the workflow on its ref, a token that may dispatch
// it — before anything is made. artifacts is where briefs are written.
func Connect(ctx context.Context, repo *jjx.Repo, artifacts string, o engine.Options) (engine.Executor, error) {
	if ex, err := engine.ParseExecutor(o.Executor); err != nil || ex == "" {
		return nil, err
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
	p := &Process{Dir: repo.Root, Worker: o.Worker, Artifacts: artifacts, Timeout: engine.WorkerTimeout(o.Timeout) + SetupTime}
	if _, err := p.Check(ctx); err != nil {
		return nil, err
	}
	return p, nil
}
