package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/jjx"
)

// StartRequest describes a new run.
type StartRequest struct {
	Binary   string
	Plan     string
	Tasks    []Task
	Waves    [][]int
	Briefs   map[int]string // task -> brief text
	Options  Options
	Fresh    bool // replace an unfinished run
	Warnings []string
	// Checked, when set, is the result of a Prerequisites call the caller
	// already made (so it is not repeated).
	Checked *Checked
}

// Checked is what Prerequisites found.
type Checked struct {
	Workspace string
	At        jjx.CommitDetail
}

// Prerequisites checks what a run needs of the orchestrating workspace
// and returns its name and @; each failure says how to fix it.
func Prerequisites(ctx context.Context, repo *jjx.Repo) (string, jjx.CommitDetail, error) {
	ats, err := repo.LogDetail(ctx, "@")
	if err != nil || len(ats) != 1 {
		return "", jjx.CommitDetail{}, exitcode.Wrap(exitcode.Missing, fmt.Errorf("read the working copy of %s: %v (is it a jj workspace? `jj workspace list` must work)", repo.Root, err))
	}
	at := ats[0]
	// jj names the working copies only when there are several.
	name := ""
	if len(at.WorkingCopies) == 1 {
		name = at.WorkingCopies[0]
	} else {
		wss, err := repo.Workspaces(ctx)
		if err != nil {
			return "", at, exitcode.Wrap(exitcode.Missing, fmt.Errorf("list workspaces: %w (jj workspaces must be usable: run `jj workspace list` to see why)", err))
		}
		for _, ws := range wss {
			if len(wss) == 1 || ws.CommitID == at.CommitID {
				name = ws.Name
				break
			}
		}
	}
	if name == "" {
		return "", at, exitcode.New(exitcode.Failure, "cannot tell which workspace %s is: `jj workspace list` names none at @", repo.Root)
	}
	if !at.Empty && strings.TrimSpace(at.Description) == "" {
		return "", at, exitcode.New(exitcode.Failure,
			"@ (%s) has changes but no description: the run squashes every task into @, so describe it first (`jj describe -m \"…\"`), or start the run from a new change (`jj new`)",
			short(at.ChangeID))
	}
	return name, at, nil
}

// Reservation is the ledger lock of a run that is about to start: taken
// before anything else is checked, so that while a run is live a second
// one fails at once naming the live holder (exit 3), and no other process
// can start a run between the checks and Start.
type Reservation struct {
	dir  string
	lock *ledger.Lock
}

// Reserve takes dir's ledger lock without waiting (exit 3 naming the
// holder's pid when a live run holds it), then checks that the ledger
// holds no unfinished run unless fresh is set (exit 5: nobody is driving
// that run, a person decides). The caller calls Start or Release.
func Reserve(dir string, fresh bool) (*Reservation, error) {
	lock, err := ledger.Acquire(dir)
	if err != nil {
		return nil, err
	}
	return ReserveHeld(lock, fresh)
}

// ReserveHeld is Reserve for a workflow that took its ledger's lock
// itself (one layer takes the lock): the reservation takes the lock
// over (released by Release, or by the runner Start returns; at once on
// error).
func ReserveHeld(lock *ledger.Lock, fresh bool) (*Reservation, error) {
	dir := lock.Dir()
	if err := checkUnfinished(dir, fresh); err != nil {
		lock.Release()
		return nil, err
	}
	return &Reservation{dir: dir, lock: lock}, nil
}

// Release drops the lock of a run that was not started; after Start the
// runner owns the lock and Release does nothing.
func (v *Reservation) Release() {
	if v.lock != nil {
		v.lock.Release()
		v.lock = nil
	}
}

// Start records the run's header (plan, parents, start operation,
// baseline) and writes the briefs, under the reservation's lock, which
// the returned runner holds until Close. On error the lock is released.
func (v *Reservation) Start(ctx context.Context, repo *jjx.Repo, req StartRequest, out io.Writer) (*Runner, error) {
	if v.lock == nil {
		return nil, errors.New("start a run: the reservation was released")
	}
	r, err := start(ctx, repo, v.dir, req, out)
	if err != nil {
		v.Release()
		return nil, err
	}
	r.lock, v.lock = v.lock, nil
	return r, nil
}

// checkUnfinished fails when the ledger holds a run that is neither
// complete nor aborted, unless fresh is set. The caller holds the lock.
func checkUnfinished(dir string, fresh bool) error {
	old, ok, err := Load(dir)
	if err != nil || !ok {
		return err
	}
	if !Fold(old).Finished() && !fresh {
		return exitcode.New(exitcode.NeedsChoice,
			"an unfinished run (%s, plan %s, started %s) is in the ledger: `resume` continues it, `abort` undoes it, or pass --fresh to start over (its workspaces are kept); no process is driving it",
			old.Header.RunID, old.Header.Plan, old.Header.Started.Format(time.RFC3339))
	}
	return nil
}

func start(ctx context.Context, repo *jjx.Repo, dir string, req StartRequest, out io.Writer) (*Runner, error) {
	o := req.Options
	if err := ledgerText("the plan's path", req.Plan, "--worker", o.Worker, "--reviewer", o.Reviewer, "--test", o.Test, "the workspaces folder", o.WorkspacesDir); err != nil {
		return nil, err
	}
	for files, cmd := range o.TestMap {
		if err := ledgerText("a test map's files", files, "a test map's command", cmd); err != nil {
			return nil, err
		}
	}
	if err := checkUnfinished(dir, req.Fresh); err != nil {
		return nil, err
	}
	old, ok, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if ok {
		archive := filepath.Join(dir, "runs", old.Header.RunID+".toml")
		if err := os.MkdirAll(filepath.Dir(archive), 0o755); err != nil {
			return nil, fmt.Errorf("archive the previous run: %w", err)
		}
		if err := os.Rename(LedgerPath(dir), archive); err != nil {
			return nil, fmt.Errorf("archive the previous run: %w", err)
		}
	}
	var ws string
	var at jjx.CommitDetail
	if req.Checked != nil {
		ws, at = req.Checked.Workspace, req.Checked.At
	} else if ws, at, err = Prerequisites(ctx, repo); err != nil {
		return nil, err
	}
	op, err := repo.OpHead(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the start operation: %w", err)
	}
	parents := at.ParentChangeIDs
	stat := baselineStat(at.Files)
	h := Header{
		Binary: req.Binary, RunID: op[:8], Plan: req.Plan, Workspace: ws, Root: repo.Root,
		Started: time.Now().UTC().Truncate(time.Second), Parents: parents, Target: at.ChangeID,
		StartOp: op, Baseline: stat, BaselineCommit: at.CommitID,
		Tasks: req.Tasks, Waves: req.Waves, Options: req.Options, Warnings: req.Warnings,
	}
	r := newRunner(repo, dir, ledger.New[Header, Event](h), out)
	if err := clearArtifacts(ArtifactsDir(dir)); err != nil {
		return nil, err
	}
	for n, b := range req.Briefs {
		if err := os.WriteFile(r.BriefPath(n), []byte(b), 0o644); err != nil {
			return nil, fmt.Errorf("write brief for task %d: %w", n, err)
		}
	}
	if err := r.Doc.Write(LedgerPath(dir)); err != nil {
		return nil, err
	}
	return r, nil
}

// clearArtifacts removes a previous run's briefs, reports, logs and
// summaries, so nothing stale is handed to a worker; other files stay.
func clearArtifacts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("artifacts %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("artifacts %s: %w", dir, err)
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "task-") || strings.HasPrefix(n, "review-") || n == "prior-waves.md" || n == "gate.log" {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("clear artifacts: %w", err)
			}
		}
	}
	return nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// baselineStat lists the files @ changes, with line counts, read in the
// call that checked the prerequisites: the ledger's Baseline, for people.
func baselineStat(files []jjx.FileChange) string {
	if len(files) == 0 {
		return "0 files changed\n"
	}
	var b strings.Builder
	added, removed := 0, 0
	for _, f := range files {
		fmt.Fprintf(&b, "%s +%d -%d\n", f.Path, f.Added, f.Removed)
		added, removed = added+f.Added, removed+f.Removed
	}
	fmt.Fprintf(&b, "%d files changed, %d insertions(+), %d deletions(-)\n", len(files), added, removed)
	return b.String()
}

// ledgerText refuses (exit 2) a value, of the (what, value) pairs, that
// is not valid UTF-8: the ledger keeps it as TOML text, and a ledger that
// cannot be read back would hold every later command, abort included.
func ledgerText(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !utf8.ValidString(pairs[i+1]) {
			return exitcode.New(exitcode.Usage, "%s %q is not valid UTF-8: the run's ledger keeps it as text; give it as UTF-8", pairs[i], pairs[i+1])
		}
	}
	return nil
}
