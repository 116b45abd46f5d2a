package explore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
)

// ExploreRequest is `jj openspec explore [TOPIC] --findings FILE`: a
// worker investigates and writes a findings document, nothing else.
type ExploreRequest struct {
	Topic string
	// Findings is the document's path as given (relative to Cwd, or
	// absolute); it must lie inside the repository.
	Findings      string
	Cwd           string
	Worker        string
	Timeout       string
	WorkspacesDir string
}

// ExploreResult is what an explore run wrote.
type ExploreResult struct {
	Topic     string `json:"topic,omitempty"`
	Findings  string `json:"findings"` // repository path
	Path      string `json:"path"`     // on disk
	Bytes     int    `json:"bytes"`
	Base      string `json:"base"`
	Workspace string `json:"workspace"`
	Worker    string `json:"worker_status"`
	// Cleaned is what runs a killed jj-openspec left were cleaned of
	// before this one started.
	Cleaned []ExploreCleanup `json:"cleaned"`
}

// ExploreInline is why explore without --findings is refused.
const ExploreInline = "explore is interactive and is not run in the background: run it inline in your agent session (/opsx:explore), then `jj openspec propose CHANGE --worker CMD` to author the change; or give --findings FILE for a worker to write a findings document (and nothing else)"

// FindingsPath resolves the findings document's path: inside the
// repository root (symbolic links followed only while they stay inside),
// not in .jj or .git, and a regular file when it exists. It returns the
// slash-separated repository path and the path on disk.
func FindingsPath(root, cwd, given string) (rel, disk string, err error) {
	if strings.TrimSpace(given) == "" {
		return "", "", exitcode.New(exitcode.Usage, "--findings: give the findings document's path, inside the repository")
	}
	abs := given
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, given)
	}
	r, err := filepath.Rel(root, filepath.Clean(abs))
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", exitcode.New(exitcode.Usage, "--findings %s: the findings document must be inside the repository %s", given, root)
	}
	disk, err = confine.Path(root, filepath.ToSlash(r))
	if err != nil {
		return "", "", fmt.Errorf("--findings %s: %w", given, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("resolve repository root %s: %w", root, err)
	}
	r, err = filepath.Rel(realRoot, disk)
	if err != nil {
		return "", "", exitcode.New(exitcode.Usage, "--findings %s: the findings document must be inside the repository %s", given, root)
	}
	rel = filepath.ToSlash(r)
	if first, _, _ := strings.Cut(rel, "/"); first == ".jj" || first == ".git" {
		return "", "", exitcode.New(exitcode.Usage, "--findings %s: %s is the VCS's own metadata, not the repository's files; name a file in the working copy", given, first)
	}
	if _, err := regfile.Check(disk); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", exitcode.Wrap(exitcode.Usage, fmt.Errorf("--findings %s: %w", given, err))
	}
	return rel, disk, nil
}

// Explore runs one worker in a jj workspace on @ (the repository as it
// is) with the findings document's path in $SPECSTACK_FINDINGS. The
// worker may change that one file and nothing else: its workspace's
// changes are read from jj, and any other path, a findings document that
// is missing or not a regular file, or an edit to the repository's own
// working copy while it ran, is refused (exit 9) with nothing written
// and the workspace kept. Otherwise the document is written atomically
// to its path in the working copy and the workspace released. The
// project lock is held throughout.
//
// Each run is recorded in the ledger (explore/<workspace>.toml) from
// before its workspace is provisioned until it ends: what a killed run
// left (its worker, its workspace) is cleaned up first (CleanExplores).
func Explore(ctx context.Context, env *Env, req ExploreRequest) (*ExploreResult, error) {
	if err := engine.NeedWorker(req.Worker, env.Repo.Root); err != nil {
		return nil, err
	}
	if err := apply.CheckTimeout(req.Timeout); err != nil {
		return nil, err
	}
	rel, disk, err := FindingsPath(env.Repo.Root, req.Cwd, req.Findings)
	if err != nil {
		return nil, err
	}
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	res := &ExploreResult{Topic: req.Topic, Findings: rel, Path: disk}
	if res.Cleaned, err = CleanExplores(ctx, env, req.WorkspacesDir); err != nil {
		return res, err
	}
	before, err := env.Repo.WorkingCopy(ctx) // snapshots @: the worker sees it
	if err != nil {
		return nil, fmt.Errorf("read @ of %s: %w", env.Repo.Root, err)
	}
	res.Base = before.ChangeID
	name := "openspec-explore-" + record.NewID()
	b := engine.NewJJBackend(env.Repo, req.WorkspacesDir, "openspec-explore-")
	art := engine.ArtifactsDir(env.Dir)
	if err := os.MkdirAll(art, 0o755); err != nil {
		return nil, fmt.Errorf("artifacts %s: %w", art, err)
	}
	stem := filepath.Join(art, name)
	rec := &ExploreRun{Workspace: name, Path: b.Path(name), WorkspacesDir: req.WorkspacesDir, Findings: rel, Base: before.ChangeID,
		PIDFile: stem + ".pid", Log: stem + ".log", State: ExploreRunning, Started: time.Now().UTC()}
	// Recorded before the workspace exists: a kill at any later instant
	// leaves a record naming what to clean up.
	if err := writeExplore(env.Dir, rec); err != nil {
		return nil, err
	}
	engine.CrashPoint("explore-recorded")
	// Once the run has ended (written, or halted with the workspace kept
	// and the person told how to release it), its record goes.
	ended := func(err error) error {
		if rerr := removeExplore(env.Dir, name); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	ws, err := b.Provision(ctx, engine.Workspace{Name: name, Base: []string{before.ChangeID}, Message: "docs: explore findings " + rel})
	if err != nil {
		return nil, fmt.Errorf("provision the explore workspace: %w", err)
	}
	res.Workspace = ws.Path
	// The workspace's own change, recorded at once: a cleanup after a kill
	// abandons it whatever became of the base meanwhile.
	wcs, err := env.Repo.WorkingCopies(ctx, []string{name})
	if err != nil {
		return nil, fmt.Errorf("read the working copy of the explore workspace %s: %w", name, err)
	}
	wc, ok := wcs[name]
	if !ok {
		return nil, fmt.Errorf("the explore workspace %s is unknown to jj right after it was made; the next explore (or `jj openspec explore --abort`) releases it", name)
	}
	rec.Changes = []string{wc.ChangeID}
	if err := writeExplore(env.Dir, rec); err != nil {
		return nil, err
	}
	engine.CrashPoint("explore-provisioned")
	j := engine.Job{Command: req.Worker, Dir: ws.Path, Role: "explorer", Task: "explore",
		Brief: stem + "-brief.md", Report: stem + "-report.md", Log: rec.Log, PIDFile: rec.PIDFile,
		Environment: []string{"SPECSTACK_ARTIFACTS=" + art, "SPECSTACK_FINDINGS=" + filepath.Join(ws.Path, filepath.FromSlash(rel))}}
	j.Timeout = engine.WorkerTimeout(req.Timeout) // checked above
	// The document's folder exists for the worker (an empty folder is no
	// change to jj).
	if dst, err := confine.Path(ws.Path, path.Dir(rel)); err != nil {
		return nil, fmt.Errorf("the findings folder in the workspace: %w", err)
	} else if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("the findings folder in the workspace: %w", err)
	}
	if err := os.WriteFile(j.Brief, []byte(exploreBrief(req.Topic, rel)), 0o644); err != nil {
		return nil, fmt.Errorf("write the brief: %w", err)
	}
	fmt.Fprintf(env.Out, "explore: worker started in %s (log %s)\n", ws.Path, j.Log)
	run := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	engine.CrashPoint("explore-worker-ended")
	// The exit code wins over the report; no status is not done.
	var why string
	res.Worker, why = engine.Outcome(run, j.Report, j.Log)
	kept := fmt.Sprintf("its workspace %s is kept for inspection (`jj workspace forget %s` and remove the folder to release it); log %s", ws.Path, name, j.Log)
	// Nothing may have changed in the repository's own working copy.
	after, err := env.Repo.WorkingCopy(ctx)
	if err != nil {
		return res, fmt.Errorf("read @ of %s after the worker: %w", env.Repo.Root, err)
	}
	if after.CommitID != before.CommitID {
		what := "its files could not be listed"
		if paths, err := env.Repo.ChangedPaths(ctx, before.CommitID, after.CommitID); err == nil {
			what = strings.Join(paths, ", ")
		} else {
			what += ": " + err.Error()
		}
		return res, ended(exitcode.New(exitcode.Halted, "explore: the working copy of %s changed while the worker ran (%s): a worker writes only its findings document, in its workspace; nothing was written. Inspect with `jj diff --from %s --to @`; %s",
			env.Repo.Root, what, record.ShortID(before.CommitID), kept))
	}
	p, err := b.Collect(ctx, ws)
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: the record stays, and the next explore (or
			// --abort) keeps the findings and releases the workspace.
			return res, exitcode.Wrap(exitcode.Interrupted, fmt.Errorf("collect the explore workspace %s: %w", ws.Path, err))
		}
		return res, ended(exitcode.Wrap(exitcode.Halted, fmt.Errorf("explore: collect the explore workspace %s: %w; nothing was written; %s", ws.Path, err, kept)))
	}
	var files []string
	for _, f := range p.Files {
		files = append(files, f.Path)
	}
	if res.Worker != engine.StatusDone && res.Worker != engine.StatusConcerns {
		if why != "" {
			why = " (" + why + ")"
		}
		return res, ended(exitcode.New(exitcode.Halted, "explore: the worker ended %s (exit %d)%s; nothing was written; %s", res.Worker, run.ExitCode, why, kept))
	}
	if other := slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f == rel }); len(other) > 0 {
		return res, ended(exitcode.New(exitcode.Halted, "explore: the worker changed %s besides the findings document %s: a worker writes the findings and nothing else; nothing was written; %s", strings.Join(other, ", "), rel, kept))
	}
	if !slices.Contains(files, rel) {
		return res, ended(exitcode.New(exitcode.Halted, "explore: the worker wrote no findings document (%s is unchanged in its workspace); nothing was written; %s", rel, kept))
	}
	src, err := confine.RegularFile(ws.Path, rel)
	if err != nil {
		return res, ended(exitcode.Wrap(exitcode.Halted, fmt.Errorf("explore: the findings document the worker left: %w; nothing was written; %s", err, kept)))
	}
	data, err := regfile.Read(src)
	if err != nil {
		return res, ended(exitcode.Wrap(exitcode.Halted, fmt.Errorf("explore: read the findings document the worker left: %w; nothing was written; %s", err, kept)))
	}
	// The workspace's changes are recorded before the document is
	// written: once it is in @ they are rebased onto it and empty, and
	// jj would no longer list them as the workspace's work.
	for _, id := range p.Changes {
		if !slices.Contains(rec.Changes, id) {
			rec.Changes = append(rec.Changes, id)
		}
	}
	if err := writeExplore(env.Dir, rec); err != nil {
		return res, err
	}
	if err := writeAtomic(art, disk, data); err != nil {
		return res, ended(exitcode.Wrap(exitcode.Halted, fmt.Errorf("explore: write the findings document %s: %w; %s", disk, err, kept)))
	}
	res.Bytes = len(data)
	rec.State = ExploreWritten
	if err := writeExplore(env.Dir, rec); err != nil {
		return res, err
	}
	engine.CrashPoint("explore-written")
	if err := b.Release(ctx, ws); err != nil {
		return res, fmt.Errorf("release the explore workspace: %w", err)
	}
	// The workspace's changes were only the worker's copy of the
	// document. By change ID: writing the document into @ rebased them.
	// Those still visible: the worker may have abandoned the one the
	// workspace was made with.
	live, err := env.Repo.ChangeIDs(ctx, jjx.PresentUnion(rec.Changes...))
	if err != nil {
		return res, fmt.Errorf("read the explore workspace's changes %s: %w", strings.Join(rec.Changes, ", "), err)
	}
	if len(live) > 0 {
		revs := make([]string, len(live))
		for i, id := range live {
			revs[i] = jjx.ID(id)
		}
		if err := b.Abandon(ctx, revs...); err != nil {
			return res, fmt.Errorf("abandon the explore workspace's changes %s: %w", strings.Join(live, ", "), err)
		}
	}
	return res, removeExplore(env.Dir, name)
}

// writeAtomic replaces path with data: a temporary file in scratch (the
// ledger's artifacts, outside the working copy, so a kill leaves no
// stray file for jj to record) or, on another file system, beside path;
// synced, renamed over path, the folder synced. A kill leaves the old
// document or the new one, never a part.
func writeAtomic(scratch, path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	err := writeVia(scratch, path, data)
	if errors.Is(err, syscall.EXDEV) {
		err = writeVia(dir, path, data)
	}
	if err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeVia writes data to a temporary file in tmpDir and renames it to
// path.
func writeVia(tmpDir, path string, data []byte) error {
	f, err := os.CreateTemp(tmpDir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// exploreBrief is an explore worker's instructions; the topic travels
// only in this file.
func exploreBrief(topic, rel string) string {
	if strings.TrimSpace(topic) == "" {
		topic = "(none given: survey the project's OpenSpec specs and changes and what they leave open)"
	}
	return fmt.Sprintf(`# Explore

Investigate the topic below in this workspace (a copy of the repository as
it is) and write your findings to $SPECSTACK_FINDINGS (%s): what exists,
what is open, options and trade-offs, questions for a person.

Write that one file and nothing else: change no other file, create no
OpenSpec change, commit nothing. jj-openspec refuses the findings if any
other file changed.

Write your report to $SPECSTACK_REPORT with a line "Status: DONE" (or
DONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT).

## Topic

%s
`, rel, topic)
}
