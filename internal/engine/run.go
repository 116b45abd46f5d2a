package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/jjx"
)

// LedgerFile is the current run's ledger inside the ledger directory;
// finished runs move to runs/<run-id>.toml when a new one starts.
const LedgerFile = "run.toml"

// DefaultMaxFixes is how many fix attempts a task gets before the run
// halts for a person.
const DefaultMaxFixes = 2

// Runner drives one run: it holds the ledger lock, the ledger, and the
// workspace backend.
type Runner struct {
	Dir string // ledger directory
	Doc *Doc
	// Backend is the task workspaces' life on the VCS and the target they
	// are integrated into: jj-kaisen's is the jj backend, whose target is
	// the orchestrating workspace's @.
	Backend Backend
	Out     io.Writer // progress for people (stderr)
	// Progress, when set, shows the running workers (Out should write
	// through it, so status lines and progress lines do not mix).
	Progress *Progress
	// Overrides, when set, replace the recorded commands (resume with
	// another worker, or a driver run after step mode).
	Worker, Reviewer, Test string
	// ConfidenceOverride, when set, is why a review whose confidence is
	// below the run's min-confidence passes anyway (recorded in the
	// ledger).
	ConfidenceOverride string
	// MaxCost, when positive, replaces the recorded budget (resume with
	// a higher one).
	MaxCost float64
	// Commands name the front end's verbs in halt messages (jj-kaisen's
	// when unset).
	Commands Commands
	// Screen, when set, checks what a worker that reported done left in
	// task t's workspace (files: the paths its change touched) before
	// the task is collected: jj-openspec reverts ticks outside the
	// task's groups and refuses a change to the change's own artifacts.
	Screen func(ctx context.Context, t *TaskState, files []string) (Screening, error)
	// Executor, when set, runs the implementers away from this machine
	// (Options.Executor names it); nil runs them here.
	Executor Executor

	mu    sync.Mutex
	lock  *ledger.Lock
	group groupCommit
}

// ArtifactsDir is where briefs, reports, logs and findings live: beside
// the ledger, outside every working copy.
func ArtifactsDir(dir string) string { return filepath.Join(dir, "artifacts") }

// LedgerPath is the current run's ledger file.
func LedgerPath(dir string) string { return filepath.Join(dir, LedgerFile) }

// Load reads the current run's ledger without locking; ok is false when
// there is none.
func Load(dir string) (*Doc, bool, error) {
	d, err := ledger.Read[Header, Event](LedgerPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return d, true, nil
}

// checkProvisioned holds every recorded task workspace to what this run
// makes, before a verb that works in them (provision, dispatch, collect,
// fan-in) relies on it: named "…task-N" for its task N (never the
// orchestrating workspace: forgetting it would leave the person's working
// copy without a commit), at an absolute path whose last element is that
// name (a worker runs there). Abort restores the start operation and
// removes only folders inside the workspaces folder; it needs no check.
func checkProvisioned(d *Doc) error {
	for _, e := range d.Events {
		p, ok := e.Payload.(Provisioned)
		if !ok {
			continue
		}
		want := fmt.Sprintf("task-%d", e.Task)
		switch {
		case p.Workspace == d.Header.Workspace || p.Workspace != want && !strings.HasSuffix(p.Workspace, "-"+want):
			return fmt.Errorf("task %d's workspace is recorded as %q, which is not a name this run gives it (…%s)", e.Task, p.Workspace, want)
		case !filepath.IsAbs(p.Path) || filepath.Base(filepath.Clean(p.Path)) != p.Workspace:
			return fmt.Errorf("task %d's workspace %s is recorded at %q, which is not a folder of that name", e.Task, p.Workspace, p.Path)
		}
	}
	return nil
}

// trustRecorded is checkProvisioned of r's ledger, as a damaged ledger's
// error: nothing is done in a workspace the run did not make; `abort`
// still undoes the run.
func (r *Runner) trustRecorded() error {
	if err := checkProvisioned(r.Doc); err != nil {
		return fmt.Errorf("the ledger %s is damaged: %w; nothing is done there (`abort` undoes the run, or move the ledger aside to start over)", LedgerPath(r.Dir), err)
	}
	return nil
}

// ErrNoRun reports that the ledger holds no run.
var ErrNoRun = errors.New("no run in the ledger")

// Open locks dir and loads its run.
func Open(ctx context.Context, repo *jjx.Repo, dir string, out io.Writer) (*Runner, error) {
	lock, err := ledger.Acquire(dir)
	if err != nil {
		return nil, err
	}
	return OpenHeld(ctx, repo, lock, out)
}

// OpenHeld is Open for a workflow that took its ledger's lock itself
// (one layer takes the lock): it loads the run of lock's directory and
// the runner takes the lock over, releasing it on Close (at once on
// error).
func OpenHeld(ctx context.Context, repo *jjx.Repo, lock *ledger.Lock, out io.Writer) (*Runner, error) {
	dir := lock.Dir()
	d, ok, err := Load(dir)
	if err != nil {
		lock.Release()
		return nil, err
	}
	if !ok {
		lock.Release()
		return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("%w at %s: start one with `run` or `start`", ErrNoRun, dir))
	}
	r := newRunner(repo, dir, d, out)
	r.lock = lock
	return r, nil
}

func newRunner(repo *jjx.Repo, dir string, d *Doc, out io.Writer) *Runner {
	if out == nil {
		out = io.Discard
	}
	return &Runner{Dir: dir, Doc: d, Out: out, Backend: BackendOf(repo, d)}
}

// BackendOf is the backend run d's task workspaces live in: jj
// workspaces in the folder the run recorded (the default one for ledgers
// from before it was recorded).
func BackendOf(repo *jjx.Repo, d *Doc) *JJBackend {
	wsDir := d.Header.Options.WorkspacesDir
	if wsDir == "" {
		wsDir = WorkspacesDir(d.Header.Root)
	}
	return NewJJBackend(repo, wsDir, workspacePrefix(d))
}

// Close releases the lock.
func (r *Runner) Close() {
	if r.lock != nil {
		r.lock.Release()
		r.lock = nil
	}
}

// WorkspacesDir is where a repository's task workspaces are created
// when the run recorded no folder: config.WorkspacesDir without a
// configuration file ($SPECSTACK_WORKSPACES, else under the temporary
// directory), outside every working copy.
func WorkspacesDir(root string) string { return config.WorkspacesDir(nil, root) }

// State folds the ledger.
func (r *Runner) State() *State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Fold(r.Doc)
}

// record appends events to the ledger atomically.
func (r *Runner) record(events ...Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range events {
		if events[i].At.IsZero() {
			events[i].At = now
		}
	}
	return r.Doc.Append(LedgerPath(r.Dir), events...)
}

// groupCommit gathers the events of concurrent recordTogether calls.
type groupCommit struct {
	mu      sync.Mutex
	queue   []Event
	waiters []chan error
	busy    bool // a caller is writing
}

// recordTogether records ev as record does, returning once it is in the
// ledger on disk (or its write failed), but writes the events of callers
// waiting meanwhile together: one ledger write for the workers of a wave
// that finish at once, instead of one each. The first caller writes
// batches until none is waiting; each caller gets its own batch's error.
func (r *Runner) recordTogether(ev Event) error {
	g := &r.group
	done := make(chan error, 1)
	g.mu.Lock()
	g.queue, g.waiters = append(g.queue, ev), append(g.waiters, done)
	if g.busy {
		g.mu.Unlock()
		return <-done
	}
	g.busy = true
	for len(g.queue) > 0 {
		events, waiters := g.queue, g.waiters
		g.queue, g.waiters = nil, nil
		g.mu.Unlock()
		err := r.record(events...)
		for _, w := range waiters {
			w <- err
		}
		g.mu.Lock()
	}
	g.busy = false
	g.mu.Unlock()
	return <-done
}

func (r *Runner) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.Out, format+"\n", args...)
}

// halt records that the run stopped for a person, with @ as it is then
// (so abort can tell a person's later edits), and returns err.
// Budget refuses to start more agent jobs once what the run's agents
// spent reaches its budget: the run halts (exit 9), saying what was spent
// and how to go on with a higher one.
func (r *Runner) Budget(ctx context.Context, what string) error {
	limit := r.Doc.Header.Options.MaxCost
	if r.MaxCost > 0 {
		limit = r.MaxCost
	}
	st := r.State()
	if limit <= 0 || st.Agent == nil || st.Agent.CostUSD < limit {
		return nil
	}
	return r.halt(ctx, exitcode.New(exitcode.Halted, "the agents spent $%.2f, the budget is $%.2f (--max-cost): %s not started; `%s --max-cost N` with a higher N goes on",
		st.Agent.CostUSD, limit, what, r.commands().Resume))
}

func (r *Runner) halt(ctx context.Context, err error) error {
	ev := Halted{Reason: err.Error()}
	if at, aerr := r.Backend.Head(ctx); aerr == nil {
		ev.Commit = at
	}
	if rerr := r.record(Event{Payload: ev}); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

func (r *Runner) art(name string) string { return filepath.Join(ArtifactsDir(r.Dir), name) }

// BriefPath, ReportPath, LogPath and FindingsPath name a task's artifacts.
func (r *Runner) BriefPath(n int) string    { return r.art(fmt.Sprintf("task-%d-brief.md", n)) }
func (r *Runner) ReportPath(n int) string   { return r.art(fmt.Sprintf("task-%d-report.md", n)) }
func (r *Runner) LogPath(n int) string      { return r.art(fmt.Sprintf("task-%d.log", n)) }
func (r *Runner) FindingsPath(n int) string { return r.art(fmt.Sprintf("task-%d-findings.json", n)) }
func (r *Runner) PIDPath(n int) string      { return r.art(fmt.Sprintf("task-%d.pid", n)) }

// PriorWavesPath is the summary of merged waves that later waves read.
func (r *Runner) PriorWavesPath() string { return r.art("prior-waves.md") }

// WorkspaceName is task n's workspace name: the binary's short name, the
// orchestrating workspace and the run, so concurrent runs, and runs from
// other workspaces, never collide ("kaisen-default-1a2b3c4d-task-3").
func (r *Runner) WorkspaceName(n int) string {
	return fmt.Sprintf("%stask-%d", workspacePrefix(r.Doc), n)
}

// workspacePrefix starts the names of every task workspace of run d.
func workspacePrefix(d *Doc) string {
	prefix := strings.TrimPrefix(d.Header.Binary, "jj-")
	if prefix == "" {
		prefix = "run"
	}
	return fmt.Sprintf("%s-%s-%s-", nameSafe(prefix), nameSafe(d.Header.Workspace), nameSafe(d.Header.RunID))
}

// nameSafe is s with every character but ASCII letters, digits, '.', '_'
// and '-' replaced by '-': a jj workspace may be named anything ("a/b",
// "../x", spaces), and a task workspace's name is a folder's name under
// the workspaces folder, never a path.
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, s)
}

func (r *Runner) worker() string   { return pick(r.Worker, r.Doc.Header.Options.Worker) }
func (r *Runner) reviewer() string { return pick(r.Reviewer, r.Doc.Header.Options.Reviewer) }
func (r *Runner) testCmd() string  { return pick(r.Test, r.Doc.Header.Options.Test) }

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// DefaultWorkerTimeout bounds a worker when no timeout is configured
// (--timeout, [worker] timeout): every child process has a deadline. It is
// gh specstack run's default too.
const DefaultWorkerTimeout = time.Hour

// WorkerTimeout is the limit of a worker given the configured duration s:
// s when it is a positive Go duration, else DefaultWorkerTimeout (the
// verbs refuse a malformed s before anything runs).
func WorkerTimeout(s string) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return DefaultWorkerTimeout
}

func (r *Runner) timeout() time.Duration { return WorkerTimeout(r.Doc.Header.Options.Timeout) }

func (r *Runner) maxFixes() int {
	if n := r.Doc.Header.Options.MaxFixes; n > 0 {
		return n
	}
	return DefaultMaxFixes
}

func taskLabel(n int) string { return fmt.Sprintf("task %d", n) }
