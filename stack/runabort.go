package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// AbortResult is what an abort did: the workspaces it removed, the
// unpublished work it kept (and where), and what stays on GitHub.
type AbortResult struct {
	Spec  int    `json:"spec"`
	State string `json:"state"` // aborted
	// Stopped are the workers a killed run left running, stopped.
	Stopped []int `json:"stopped_workers"`
	// Released are the workspaces removed (paths).
	Released []string `json:"released"`
	// Kept is the unpublished work of the run, kept where it outlives
	// its workspace.
	Kept []KeptWork `json:"kept"`
	// Published are the pull requests the run opened: they stay open.
	Published []PublishedWork `json:"published"`
	// Remote are the jobs on GitHub Actions (an --executor
	// github-actions run) whose results the run never took: each
	// cancelled (when unfinished) and its base branch deleted, or why it
	// could not be.
	Remote []RemoteJob `json:"remote_jobs"`
}

// RemoteJob is a job an aborted run left on GitHub Actions: Cancelled
// when abort cancelled it (or found it over) and deleted its base
// branch, else Error says why not. KeptBranch is the result branch it
// pushed, kept on origin: a worker's work nothing took is not deleted.
type RemoteJob struct {
	Ticket int `json:"ticket,omitempty"` // 0: the whole-stack fixer's
	engine.RemoteRun
	Cancelled  bool   `json:"cancelled"`
	KeptBranch string `json:"kept_branch,omitempty"`
	Error      string `json:"error,omitempty"`
}

// KeptWork is one workspace's unpublished work: its commit, and the
// branch (git) that holds it; with jj the commit stays visible.
type KeptWork struct {
	Ticket int    `json:"ticket,omitempty"` // 0: the whole-stack review's fixes
	Commit string `json:"commit"`
	Branch string `json:"branch,omitempty"`
}

// PublishedWork is a pull request the run opened, left as it is.
type PublishedWork struct {
	Ticket int    `json:"ticket,omitempty"` // 0: prior work or the integration
	Branch string `json:"branch"`
	PR     int    `json:"pr"`
	URL    string `json:"url,omitempty"`
}

// Abort ends the unfinished run recorded in the ledger for good, under
// the ledger lock (exit 3 while a run holds it): the workers a killed
// run left running are stopped, each workspace it left is removed, with
// the work an unpublished one holds kept first (Keep: a branch beside
// the ticket's with git, the visible commit with jj), and the ledger
// records the run finalized "aborted", so that resume refuses it and the
// next run starts afresh. Jobs an --executor github-actions run left on
// GitHub Actions are cancelled first and their base branches deleted,
// results they pushed kept, through env.GH or, when it is nil, a client
// from dial (called only then); one that could not be is named in an
// exit 1 error once the run is aborted here. Nothing else on GitHub
// changes: branches pushed and pull requests opened stay, and are
// listed. No run, or a finalized one, is a usage error (exit 2); nothing
// is written then, and nothing is returned but the error.
func Abort(ctx context.Context, env *Env, o DriveOptions, dial func(context.Context) (*ghapi.Client, error)) (*AbortResult, error) {
	l, doc, err := lockedRun(o.LedgerDir, "abort")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	h, s := doc.Header, foldRun(doc)
	if s.Finalized != "" {
		return nil, exitcode.New(exitcode.Usage, "the run of spec #%d is finalized (%s): nothing to abort; a new run starts with gh specstack run %d --worker CMD --yes", h.Spec, s.Finalized, h.Spec)
	}
	backend, g, err := openWorkspaces(env.VCS, h.Workspaces, o.WorkspacesDir)
	if err != nil {
		return nil, err
	}
	res := &AbortResult{Spec: h.Spec, State: engine.FinalAborted, Stopped: []int{}, Released: []string{}, Kept: []KeptWork{}, Published: []PublishedWork{}, Remote: []RemoteJob{}}
	artifacts := filepath.Join(o.LedgerDir, "run")
	tip, _ := tipOf(s, h)
	type left struct {
		ticket int
		ws     engine.Workspace
		keep   bool // unpublished: its work is kept before it goes
	}
	var all []left
	for _, t := range h.Tickets {
		n, ts := t.Number, s.Tickets[t.Number]
		if engine.StopOrphan(filepath.Join(artifacts, itoa(n), "worker.pid")) {
			res.Stopped = append(res.Stopped, n)
		}
		base := ts.Base
		if base == "" {
			base = h.BaseSHA
		}
		name := TicketBranch(n)
		all = append(all, left{n, engine.Workspace{Name: name, Base: []string{base}, Message: fmt.Sprintf("#%d: %s", n, t.Title)},
			ts.State != engine.StatePublished && ts.State != engine.StateSubsumed})
		if ts.PR != 0 {
			res.Published = append(res.Published, PublishedWork{Ticket: n, Branch: name, PR: ts.PR, URL: ts.URL})
		}
		if rr := ts.Remote; rr != nil && !rr.Settled {
			res.Remote = append(res.Remote, RemoteJob{Ticket: n, RemoteRun: *rr})
		}
	}
	if rr := s.Remote; rr != nil && !rr.Settled {
		res.Remote = append(res.Remote, RemoteJob{RemoteRun: *rr})
	}
	// A job cancelled is settled in the ledger at once: should the abort
	// stop before its end (a workspace it cannot read), a resume
	// dispatches the job anew rather than follow a cancelled run.
	if settled := cancelJobs(ctx, env, dial, h, o, g.Dir, res.Remote); len(settled) > 0 {
		if err := doc.Append(RunLedgerPath(o.LedgerDir), settled...); err != nil {
			return nil, fmt.Errorf("abort: record the cancelled jobs in the ledger: %w", err)
		}
	}
	integration := IntegrationBranch(h.Spec)
	all = append(all, left{0, engine.Workspace{Name: integration, Base: []string{tip}, Message: fmt.Sprintf("spec #%d: whole-stack review fixes", h.Spec)},
		s.Integration == nil || s.Integration.PR == 0})
	for _, name := range []string{"specstack-baseline", "specstack-baseline-review", "specstack-prior"} {
		all = append(all, left{ws: engine.Workspace{Name: name, Base: []string{h.BaseSHA}}})
	}
	if s.Prior.PR != 0 {
		res.Published = append(res.Published, PublishedWork{Branch: h.Prior, PR: s.Prior.PR, URL: s.Prior.URL})
	}
	if in := s.Integration; in != nil && in.PR != 0 {
		res.Published = append(res.Published, PublishedWork{Branch: in.Branch, PR: in.PR, URL: in.URL})
	}
	for _, lw := range all {
		lw.ws.Path = backend.Path(lw.ws.Name)
		if _, err := os.Lstat(lw.ws.Path); err != nil {
			continue
		}
		if lw.keep {
			kept, err := backend.Keep(ctx, lw.ws)
			if err != nil {
				return nil, fmt.Errorf("abort: %w; nothing of %s was removed and the run is not aborted: look at it, move it away if it holds nothing you need, then run abort again", err, lw.ws.Path)
			}
			if kept != "" {
				res.Kept = append(res.Kept, KeptWork{Ticket: lw.ticket, Commit: kept, Branch: backend.KeptBranch(lw.ws.Name, kept)})
			}
			engine.CrashPoint("abort-kept")
		}
		if err := backend.Release(ctx, lw.ws); err != nil {
			return nil, fmt.Errorf("abort: %w", err)
		}
		res.Released = append(res.Released, lw.ws.Path)
	}
	ev := run(engine.Finalized{Status: engine.FinalAborted})
	ev.At = time.Now().UTC()
	if err := doc.Append(RunLedgerPath(o.LedgerDir), engine.RunEvent{Event: ev}); err != nil {
		return nil, fmt.Errorf("abort: record it in the ledger: %w", err)
	}
	var notCancelled []string
	for _, j := range res.Remote {
		if !j.Cancelled {
			notCancelled = append(notCancelled, fmt.Sprintf("job %s %s (%s)", j.Job, cmp.Or(j.URL, "(run not found yet)"), j.Error))
		}
	}
	if len(notCancelled) > 0 {
		return res, exitcode.New(exitcode.Failure, "the run of spec #%d is aborted here, but these jobs on GitHub Actions could not be cancelled: %s; cancel them there (gh run cancel ID); their specstack/ branches on origin are left too", h.Spec, strings.Join(notCancelled, "; "))
	}
	return res, nil
}

// cancelJobs cancels each job in jobs that has not finished and deletes
// its base branch on origin (ActionsExecutor.Abandon: a result it pushed
// stays), through the run's executor on GitHub Actions, GitHub dialled
// when env has no client yet; what fails is said in the job's Error.
// Cancelling a run that is over, or deleting a branch already gone, is
// not an error: an abort killed after it and run again does it again.
// It returns the ledger events that settle the jobs it cancelled.
func cancelJobs(ctx context.Context, env *Env, dial func(context.Context) (*ghapi.Client, error), h RunHeader, o DriveOptions, gitDir string, jobs []RemoteJob) []engine.RunEvent {
	if len(jobs) == 0 {
		return nil
	}
	e, err := abortExecutor(ctx, env, dial, h, o)
	var settled []engine.RunEvent
	now := time.Now().UTC()
	for i := range jobs {
		j := &jobs[i]
		if err != nil {
			j.Error = err.Error()
			continue
		}
		if !j.Done {
			if err := e.Cancel(ctx, j.RemoteRun); err != nil {
				j.Error = "cancel: " + err.Error()
				continue
			}
		}
		kept, err := e.Abandon(ctx, gitDir, j.RemoteRun)
		if err != nil {
			j.Error = err.Error()
			continue
		}
		j.Cancelled, j.KeptBranch = true, kept
		if !j.Done {
			for _, p := range []engine.Payload{engine.RemoteFinished{RunID: j.ID, Conclusion: "cancelled"}, engine.RemoteSettled{}} {
				ev := at(j.Ticket, p)
				ev.At = now
				settled = append(settled, engine.RunEvent{Event: ev})
			}
		}
	}
	return settled
}

// abortExecutor is the run's executor on GitHub Actions, for abort.
func abortExecutor(ctx context.Context, env *Env, dial func(context.Context) (*ghapi.Client, error), h RunHeader, o DriveOptions) (*ActionsExecutor, error) {
	gh := env.GH
	if gh == nil {
		if dial == nil {
			return nil, errors.New("GitHub is not reachable from here")
		}
		var err error
		if gh, err = dial(ctx); err != nil {
			return nil, fmt.Errorf("reach GitHub: %w", err)
		}
	}
	e, err := actionsExecutorFor(ctx, &Env{VCS: env.VCS, GH: gh}, h, o.Executor, 0)
	if err != nil {
		return nil, fmt.Errorf("reach GitHub: %w", err)
	}
	return e, nil
}

// where says where the work is kept: its branch, else its commit.
func (k KeptWork) where() string {
	if k.Branch != "" {
		return "branch " + k.Branch + " (" + short(k.Commit) + ")"
	}
	return "commit " + short(k.Commit)
}

// WriteText says what the abort did and what stays on GitHub.
func (r *AbortResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "aborted the run of spec #%d: resume refuses it now, and gh specstack run %d starts a new one\n", r.Spec, r.Spec)
	for _, n := range r.Stopped {
		fmt.Fprintf(&b, "  stopped the worker of #%d a killed run left running\n", n)
	}
	for _, k := range r.Kept {
		what := "the whole-stack review's fixes"
		if k.Ticket != 0 {
			what = fmt.Sprintf("#%d's unpublished work", k.Ticket)
		}
		fmt.Fprintf(&b, "  kept %s: %s\n", what, k.where())
	}
	for _, p := range r.Released {
		fmt.Fprintf(&b, "  removed %s\n", p)
	}
	if len(r.Published) > 0 {
		b.WriteString("on GitHub, left as they are (a new run stops at a branch it did not push: close these and delete their branches first, or keep them):\n")
		for _, p := range r.Published {
			fmt.Fprintf(&b, "  #%d %s %s\n", p.PR, p.Branch, p.URL)
		}
	}
	for _, j := range r.Remote {
		if j.Cancelled {
			what := "cancelled job"
			if j.Done {
				what = "finished job"
			}
			fmt.Fprintf(&b, "  %s %s on GitHub Actions %s: its base branch deleted\n", what, j.Job, j.URL)
			if j.KeptBranch != "" {
				fmt.Fprintf(&b, "  kept the result it pushed: branch %s on origin\n", j.KeptBranch)
			}
		} else {
			fmt.Fprintf(&b, "still on GitHub Actions, not cancelled (%s): job %s %s\n", j.Error, j.Job, j.URL)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
