package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/regfile"
)

// DefaultGateMaxRounds is how many review rounds a ticket gets before it
// publishes with what is unresolved.
const DefaultGateMaxRounds = 3

// RunRequest asks for a run of a spec's tickets.
type RunRequest struct {
	Plan          PlanRequest
	Worker        string
	Reviewer      string
	Order         string // sequential (default) or parallel
	MaxParallel   int
	GateMaxRounds int
	Timeout       time.Duration // per worker or command
	MaxCost       float64       // USD; 0: no limit
	// Executor is where the tickets' implementers run: "" (here) or
	// engine.ExecutorActions.
	Executor string
}

// SettleRun settles the run exactly as plan does (mode, base, pinned base
// SHA, layers, exclusions, recipes) and returns the ledger header to
// record. It changes nothing but the local remote-tracking refs.
func SettleRun(ctx context.Context, env *Env, req RunRequest) (RunHeader, *Plan, error) {
	switch req.Order {
	case "":
		req.Order = OrderSequential
	case OrderSequential, OrderParallel:
	default:
		return RunHeader{}, nil, exitcode.New(exitcode.Usage, "--order %q: choose sequential or parallel", req.Order)
	}
	if strings.TrimSpace(req.Worker) == "" {
		return RunHeader{}, nil, exitcode.New(exitcode.Usage, "run: name the worker command with --worker (or [worker] command in specstack.toml)")
	}
	var err error
	if req.Executor, err = engine.ParseExecutor(req.Executor); err != nil {
		return RunHeader{}, nil, err
	}
	// With an executor, the runner installs the worker.
	if req.Executor == "" {
		if err := engine.NeedWorker(req.Worker, env.VCS.Root()); err != nil {
			return RunHeader{}, nil, err
		}
	}
	if req.Reviewer != "" {
		if err := engine.NeedWorker(req.Reviewer, env.VCS.Root()); err != nil {
			return RunHeader{}, nil, fmt.Errorf("the reviewer: %w", err)
		}
	}
	kind, err := workspacesKind(env.VCS)
	if err != nil {
		return RunHeader{}, nil, err
	}
	if req.GateMaxRounds <= 0 {
		req.GateMaxRounds = DefaultGateMaxRounds
	}
	if req.Timeout <= 0 {
		req.Timeout = time.Hour
	}
	p, err := MakePlan(ctx, env, req.Plan)
	if err != nil {
		return RunHeader{}, p, err
	}
	if len(p.Layers) == 0 && len(p.Excluded) == 0 && len(p.SkippedClosed) == 0 {
		// A ticket's number given for its spec's, or a spec not split
		// yet: nothing to build, and nothing said on GitHub.
		return RunHeader{}, p, exitcode.New(exitcode.Usage, "issue #%d in %s has no sub-issues: a run builds a spec issue's sub-issue tickets; name the spec issue (not one of its tickets), or add its tickets as sub-issues first", p.Spec, p.Repo)
	}
	h := RunHeader{Spec: p.Spec, Title: p.Title, Repo: p.Repo, StackMode: p.StackMode, Base: p.Base, StartRef: p.StartRef,
		BaseSHA: p.BaseSHA, HumanLabel: p.HumanLabel, Order: req.Order, Worker: req.Worker, Reviewer: req.Reviewer,
		MaxParallel: req.MaxParallel, GateMaxRounds: req.GateMaxRounds, Timeout: req.Timeout.String(), MaxCost: req.MaxCost,
		Started: time.Now().UTC(), Excluded: p.Excluded, Prior: req.Plan.StartRef, Workspaces: kind, Executor: req.Executor}
	for _, l := range p.Layers {
		for _, t := range l.Tickets {
			r := ParseRecipe(t.Body)
			h.Tickets = append(h.Tickets, RunTicket{Number: t.Number, Title: t.Title, Body: t.Body, Layer: l.Layer,
				Position: t.Position, BlockedBy: slices.Clone(t.BlockedBy), PerChange: r.PerChange, AtReview: r.AtReview})
		}
	}
	return h, p, nil
}

// RecordRun writes a new run's ledger: refused while another run of the
// repository is unfinished.
func RecordRun(ledgerDir string, h RunHeader) (*RunDoc, error) {
	old, ok, err := ReadRun(ledgerDir)
	if err != nil {
		return nil, err
	}
	if ok && foldRun(old).Finalized == "" {
		return nil, exitcode.New(exitcode.NeedsChoice,
			"a run of spec #%d is unfinished (%s): continue it with gh specstack resume, see it with gh specstack status, or end it with gh specstack abort to start over",
			old.Header.Spec, RunLedgerPath(ledgerDir))
	}
	if ok {
		// A finished run's ledger is kept beside, never overwritten.
		done := filepath.Join(ledgerDir, fmt.Sprintf("run-%d-%s.toml", old.Header.Spec, old.Header.Started.UTC().Format("20060102T150405Z")))
		if err := os.Rename(RunLedgerPath(ledgerDir), done); err != nil {
			return nil, fmt.Errorf("keep the finished run's ledger: %w", err)
		}
	}
	d := ledger.New[RunHeader, engine.RunEvent](h)
	if err := d.Write(RunLedgerPath(ledgerDir)); err != nil {
		return nil, err
	}
	return d, nil
}

// DriveOptions say where a run keeps its files and reports progress.
type DriveOptions struct {
	LedgerDir     string // gh-specstack's ledger directory
	WorkspacesDir string // where ticket workspaces (jj) or worktrees (git) are made
	Progress      io.Writer
	// MaxCost, when positive, replaces the recorded budget (a resume with
	// a higher one).
	MaxCost float64
	// Executor configures a run recorded with --executor github-actions.
	Executor config.ExecutorConfig
}

// budget refuses to start more agent jobs once the run's agents spent
// its budget: the run halts (exit 9) before ticket n's job, saying what
// was spent and how to go on.
func (d *driver) budget(n int, what string) error {
	limit := d.doc.Header.MaxCost
	if d.opts.MaxCost > 0 {
		limit = d.opts.MaxCost
	}
	s := d.snapshot()
	if limit <= 0 || s.Agent == nil || s.Agent.CostUSD < limit {
		return nil
	}
	return d.halt(n, engine.StateNotStarted, fmt.Sprintf("the agents spent $%.2f, the budget is $%.2f (--max-cost): %s not started; `gh specstack resume --max-cost N` with a higher N goes on", s.Agent.CostUSD, limit, what))
}

// driver carries a run from its ledger to its end or a halt.
type driver struct {
	env     *Env
	git     *gitx.Repo    // holds the run's commits: the clone, or jj's git store
	backend runWorkspaces // jj workspaces or git worktrees, as the ledger says
	opts    DriveOptions
	timeout time.Duration

	mu    sync.Mutex // guards doc and state
	doc   *RunDoc
	state *engine.RunState

	// executor runs the implementers away from here (nil: here).
	executor engine.Executor

	lane    sync.Mutex // the publish lane: one ticket at a time
	haltMu  sync.Mutex
	haltErr error
}

// Drive runs (or resumes) the run recorded in doc until it is finalized
// or halts. A halt, or a run finalized incomplete, is an exitcode.Halted
// error (exitcode.Missing for an environment blocker at the baseline);
// the status is returned either way.
func Drive(ctx context.Context, env *Env, doc *RunDoc, opts DriveOptions) (*RunStatus, error) {
	backend, g, err := openWorkspaces(env.VCS, doc.Header.Workspaces, opts.WorkspacesDir)
	if err != nil {
		return nil, err
	}
	timeout, err := time.ParseDuration(doc.Header.Timeout)
	if err != nil || timeout <= 0 {
		timeout = time.Hour
	}
	d := &driver{env: env, git: g, opts: opts, doc: doc, state: foldRun(doc), timeout: timeout, backend: backend}
	if d.opts.Progress == nil {
		d.opts.Progress = io.Discard
	}
	if doc.Header.Executor == engine.ExecutorActions {
		if d.executor, err = actionsExecutorFor(ctx, env, doc.Header, opts.Executor, timeout); err != nil {
			return nil, err
		}
	}
	if d.state.Finalized == "" {
		if err := d.drive(ctx); err != nil {
			if ctx.Err() != nil {
				st := d.status()
				st.State = engine.PhaseInterrupted
				return st, d.interrupted(ctx.Err())
			}
			return d.status(), err
		}
	}
	st := d.status()
	if st.State == engine.FinalIncomplete {
		return st, exitcode.New(exitcode.Halted, "spec #%d is incomplete and stays open (%d thing(s) remain, commented on the spec and the top pull request): a person must look; see gh specstack status",
			st.Spec, len(st.Remains))
	}
	return st, nil
}

// interrupted is the error of a run a signal cancelled (cause, the
// context's error): what was in flight, and that resume goes on from
// the ledger, which is left as a kill would leave it.
func (d *driver) interrupted(cause error) error {
	d.mu.Lock()
	var nums []string
	for _, t := range d.doc.Header.Tickets {
		switch d.state.Tickets[t.Number].State {
		case engine.StateWorking, engine.StateGating, engine.StatePublishing:
			nums = append(nums, "#"+itoa(t.Number))
		}
	}
	spec := d.doc.Header.Spec
	d.mu.Unlock()
	what := fmt.Sprintf("run of spec #%d interrupted", spec)
	switch len(nums) {
	case 0:
	case 1:
		what += " while ticket " + nums[0] + " was in flight"
	default:
		what += " while tickets " + strings.Join(nums, ", ") + " were in flight"
	}
	return exitcode.Wrap(exitcode.Interrupted, fmt.Errorf("%s: %w (gh specstack resume continues from the ledger)", what, cause))
}

func (d *driver) drive(ctx context.Context) error {
	if d.state.Halted != "" {
		if err := d.record(run(engine.Resumed{})); err != nil {
			return err
		}
	}
	if err := d.baseline(ctx); err != nil {
		var b *blockerError
		if errors.As(err, &b) {
			d.halt(0, engine.StateFailed, b.reason)
			return exitcode.New(exitcode.Missing, "%s", b.reason)
		}
		return err
	}
	// The at-review commands the per-change set lacks are measured in the
	// background: tickets go on without them, only the whole-stack review
	// waits, and nothing returns while they run.
	atReview := make(chan error, 1)
	if d.doc.Header.Reviewer != "" && d.snapshot().Review == "" {
		go func() {
			atReview <- d.measure(ctx, "specstack-baseline-review", atReviewUnion(d.doc.Header), "at-review")
		}()
	} else {
		atReview <- nil
	}
	err := d.prior(ctx)
	if err == nil {
		err = d.frontier(ctx)
	}
	bgErr := <-atReview
	if err != nil {
		return err
	}
	if bgErr != nil {
		var b *blockerError
		if errors.As(bgErr, &b) {
			// A blocker there halts only now, every ticket published.
			d.halt(0, engine.StateFailed, b.reason)
			return exitcode.New(exitcode.Missing, "%s", b.reason)
		}
		return bgErr
	}
	if err := d.stackReview(ctx); err != nil {
		return err
	}
	return d.finalize(ctx)
}

func (d *driver) logf(format string, args ...any) {
	fmt.Fprintf(d.opts.Progress, format+"\n", args...)
}

// at is an event of ticket n; run, one of the run as a whole.
func at(n int, p engine.Payload) engine.Event { return engine.Event{Task: n, Payload: p} }
func run(p engine.Payload) engine.Event       { return engine.Event{Payload: p} }

// record appends events to the ledger (atomically) and folds them in.
func (d *driver) record(evs ...engine.Event) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now().UTC()
	recs := make([]engine.RunEvent, len(evs))
	for i, e := range evs {
		e.At = now
		recs[i] = engine.RunEvent{Event: e}
	}
	if err := d.doc.Append(RunLedgerPath(d.opts.LedgerDir), recs...); err != nil {
		return err
	}
	d.state = foldRun(d.doc)
	return nil
}

// snapshot returns a copy of ticket n's state and the stack's tip.
func (d *driver) ticket(n int) (engine.TicketRun, string, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	sha, branch := tipOf(d.state, d.doc.Header)
	return *d.state.Tickets[n], sha, branch
}

func (d *driver) artifacts() string { return filepath.Join(d.opts.LedgerDir, "run") }

func (d *driver) ticketDir(n int) string { return filepath.Join(d.artifacts(), itoa(n)) }

// halt records that ticket n (0: the run) stopped with state and reason,
// and latches the run's halt: nothing new starts.
func (d *driver) halt(n int, state, reason string) error {
	err := exitcode.New(exitcode.Halted, "run halted: %s; see gh specstack status, then gh specstack resume (or gh specstack abort to give the run up)", reason)
	if rerr := d.record(at(n, engine.Halted{Status: state, Reason: reason})); rerr != nil {
		err = rerr
	}
	d.haltMu.Lock()
	if d.haltErr == nil {
		d.haltErr = err
	}
	d.haltMu.Unlock()
	d.logf("halted: %s", reason)
	return err
}

func (d *driver) halted() bool {
	d.haltMu.Lock()
	defer d.haltMu.Unlock()
	return d.haltErr != nil
}

// perChangeUnion is every ticket's per-change commands, once each, in
// ticket order.
func (d *driver) perChangeUnion() []string {
	var res []string
	seen := map[string]bool{}
	for _, t := range d.doc.Header.Tickets {
		for _, c := range t.PerChange {
			if k := NormalizeCommand(c); !seen[k] {
				seen[k] = true
				res = append(res, c)
			}
		}
	}
	return res
}

// baseline measures every per-change command once at the pinned base SHA
// (those a resumed run measured already are kept).
func (d *driver) baseline(ctx context.Context) error {
	return d.measure(ctx, "specstack-baseline", d.perChangeUnion(), "per-change")
}

// blockerError is a command that cannot start at the base: an
// environment blocker, which halts the run.
type blockerError struct{ reason string }

func (e *blockerError) Error() string { return e.reason }

// measure runs each of cmds not measured yet once at the pinned base SHA
// and records its exit code.
func (d *driver) measure(ctx context.Context, name string, cmds []string, what string) error {
	var todo []string
	for _, c := range cmds {
		if _, ok := d.baselineOf(c); !ok {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ws := engine.Workspace{Name: name, Base: []string{d.doc.Header.BaseSHA}, Message: "baseline"}
	ws, err := d.backend.Provision(ctx, ws)
	if err != nil {
		return fmt.Errorf("baseline worktree at %s: %w", short(d.doc.Header.BaseSHA), err)
	}
	defer d.backend.Release(context.WithoutCancel(ctx), ws)
	d.logf("baseline at %s: %d %s command(s)", short(d.doc.Header.BaseSHA), len(todo), what)
	for i, c := range todo {
		log := filepath.Join(d.artifacts(), "baseline", fmt.Sprintf("%s-%d.log", what, i+1))
		os.Remove(log)
		res := engine.RunJob(ctx, engine.BuildJob(engine.JobRequest{Role: "test", Task: "baseline", Dir: ws.Path, Command: c,
			Log: log, Timeout: d.timeout, Artifacts: d.artifacts()}))
		if ctx.Err() != nil {
			return exitcode.Wrap(exitcode.Interrupted, ctx.Err())
		}
		if engine.CannotStart(res.ExitCode) {
			reason := fmt.Sprintf("environment blocker: %s command %q cannot start at the base (exit %d: %s); install or fix it, check with: (cd %s && %s), then gh specstack resume",
				what, c, res.ExitCode, lastLine(tail(log, 400)), ws.Path, c)
			return &blockerError{reason: reason}
		}
		ev := engine.CommandBaselined{Command: c, ExitCode: res.ExitCode}
		if res.ExitCode != 0 {
			ev.Output = tail(log, 2000)
			d.logf("baseline: %q already fails at the base (exit %d)", c, res.ExitCode)
		}
		if err := d.record(run(ev)); err != nil {
			return err
		}
	}
	return nil
}

// readWorkerFile reads a file the run placed in its own folder for a
// worker to write (findings, verdicts, a report): nil when the worker
// wrote none; a symbolic link, FIFO or anything else that is not a
// regular file is an error naming it, never followed or opened.
func readWorkerFile(path string) ([]byte, error) {
	data, err := regfile.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// tail is the end of a file, at most n bytes.
func tail(path string, n int) string {
	data, _ := readWorkerFile(path) // a log we cannot read shows nothing
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return strings.TrimSpace(string(data))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "== ") {
			return l
		}
	}
	return "no output"
}

// frontier runs the tickets as their blockers publish: sequential order
// one at a time by the spec's order of sub-issues, then number; parallel
// order up to MaxParallel at once.
func (d *driver) frontier(ctx context.Context) error {
	h := d.doc.Header
	ts := slices.Clone(h.Tickets)
	if h.Order != OrderParallel {
		sort.SliceStable(ts, func(i, j int) bool {
			if ts[i].Position != ts[j].Position {
				return ts[i].Position < ts[j].Position
			}
			return ts[i].Number < ts[j].Number
		})
	}
	var tasks []engine.Task
	done := map[int]bool{}
	for _, t := range ts {
		tasks = append(tasks, engine.Task{Num: t.Number, Title: t.Title, Deps: t.BlockedBy})
		switch d.state.Tickets[t.Number].State {
		case engine.StatePublished, engine.StateSubsumed, engine.StateFinishedPrior:
			done[t.Number] = true
		}
	}
	limit := 1
	if h.Order == OrderParallel {
		limit = h.MaxParallel
	}
	// Cancelling starts stops new tickets; running ones keep ctx and
	// finish their current step.
	starts, stop := context.WithCancel(ctx)
	defer stop()
	engine.RunFrontier(starts, tasks, done, limit, func(_ context.Context, t engine.Task) error {
		if d.halted() {
			return errors.New("halted")
		}
		err := d.build(ctx, t.Num)
		if err != nil {
			if ctx.Err() == nil && !d.halted() {
				d.halt(t.Num, engine.StateFailed, fmt.Sprintf("ticket #%d: %v", t.Num, err))
			}
			stop()
		}
		return err
	})
	if ctx.Err() != nil {
		return exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	d.haltMu.Lock()
	defer d.haltMu.Unlock()
	return d.haltErr
}
