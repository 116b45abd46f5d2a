package explore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
)

// ExploreDir is the folder of the explore runs in the ledger directory:
// one TOML record per run, <workspace>.toml, replaced atomically. A
// record is written before the run's workspace is provisioned and
// removed once the run has ended (written, or halted with its workspace
// kept for inspection): a record found while holding the project lock
// is a run that was killed.
const ExploreDir = "explore"

// Explore run states.
const (
	// ExploreRunning: the workspace is (being) provisioned or the worker
	// runs; the findings are not in the working copy yet.
	ExploreRunning = "running"
	// ExploreWritten: the findings document is in the working copy; what
	// is left is releasing the workspace and abandoning its changes.
	ExploreWritten = "written"
)

// ExploreRun is the record of one explore run.
type ExploreRun struct {
	Version int `toml:"version" json:"-"`
	// Workspace is the jj workspace's name, Path its folder.
	Workspace string `toml:"workspace" json:"workspace"`
	Path      string `toml:"path" json:"path"`
	// WorkspacesDir is the folder the workspace was made in (a cleanup
	// finds it there whatever the configuration says now).
	WorkspacesDir string `toml:"workspaces_dir" json:"-"`
	Findings      string `toml:"findings" json:"findings"` // repository path
	Base          string `toml:"base" json:"base"`
	PIDFile       string `toml:"pid_file" json:"pid_file"`
	Log           string `toml:"log" json:"log"`
	State         string `toml:"state" json:"state"`
	// Changes are the workspace's changes: the one it was made with,
	// recorded as soon as it was provisioned (a cleanup abandons it
	// whatever became of the base), then those checked, before the
	// findings are written (they hold only the worker's copy of the
	// document).
	Changes []string  `toml:"changes,omitempty" json:"changes,omitempty"`
	Started time.Time `toml:"started" json:"started"`
}

// ExploreCleanup is what was done about an explore run a killed
// jj-openspec left.
type ExploreCleanup struct {
	Workspace string `json:"workspace"`
	State     string `json:"state"`
	// StoppedWorker: its worker was still running and was stopped.
	StoppedWorker bool `json:"stopped_worker"`
	// Saved is where the findings the worker had written in its
	// workspace (and that were not in the working copy yet) are kept.
	Saved     string   `json:"saved_findings,omitempty"`
	Abandoned []string `json:"abandoned,omitempty"`
	// Left is the workspace's working-copy change when it was neither the
	// change the workspace was made with nor one on top of it: left as is.
	Left string `json:"left_change,omitempty"`
	Log  string `json:"log"`
}

// exploreName is an explore workspace's name, as Explore makes it.
var exploreName = lazyregexp.New(`^openspec-explore-[0-9a-f]{8}$`)

func explorePath(dir, workspace string) string {
	return filepath.Join(dir, ExploreDir, workspace+".toml")
}

func writeExplore(dir string, r *ExploreRun) error {
	r.Version = 1
	return ledger.WriteFile(explorePath(dir, r.Workspace), r)
}

func removeExplore(dir, workspace string) error {
	if err := os.Remove(explorePath(dir, workspace)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the explore record: %w", err)
	}
	return nil
}

// ExploreRuns lists the explore records in the ledger directory dir, by
// workspace name.
func ExploreRuns(dir string) ([]*ExploreRun, error) {
	names, err := record.LedgerNames(dir, ExploreDir)
	if err != nil {
		return nil, err
	}
	out := []*ExploreRun{}
	for _, name := range names {
		if !exploreName.MatchString(name) {
			continue // no record explore wrote: its name becomes a folder to remove
		}
		var r ExploreRun
		if err := ledger.ReadFile(explorePath(dir, name), &r); err != nil {
			return nil, err
		}
		if r.Workspace != name {
			return nil, fmt.Errorf("explore record %s names workspace %q, not %q (the file is damaged; move it aside)", explorePath(dir, name), r.Workspace, name)
		}
		out = append(out, &r)
	}
	return out, nil
}

// CleanExplores releases what explore runs killed part-way left: for
// each record, the worker still running is stopped (by its pid file),
// findings the worker wrote in its workspace that had not reached the
// working copy are copied to the artifacts folder (from its folder,
// whatever became of its base; failing that, as its changes recorded
// them), the workspace is forgotten and its folder removed, its changes
// abandoned, and the record removed. Findings already in the working
// copy are never touched. The caller holds the project lock. Each
// cleanup is reported on env.Out.
func CleanExplores(ctx context.Context, env *Env, workspacesDir string) ([]ExploreCleanup, error) {
	runs, err := ExploreRuns(env.Dir)
	if err != nil {
		return nil, err
	}
	done := []ExploreCleanup{}
	for _, r := range runs {
		c, err := cleanExplore(ctx, env, workspacesDir, r)
		if err != nil {
			return done, fmt.Errorf("clean up the interrupted explore run in workspace %s (record %s): %w", r.Workspace, explorePath(env.Dir, r.Workspace), err)
		}
		done = append(done, c)
	}
	return done, nil
}

// ExploreStatus is one explore record as `explore --status` shows it.
type ExploreStatus struct {
	ExploreRun
	// Phase: "interrupted while its worker ran" or "interrupted after
	// its findings were written" when no jj-openspec holds the project
	// lock (the record is a killed run's); "running, or interrupted"
	// while one does (it may be that run's).
	Phase string `json:"phase"`
	// Interrupted: a killed run's record, which the next explore or
	// explore --abort cleans up.
	Interrupted bool   `json:"interrupted"`
	Ledger      string `json:"ledger"`
}

// ExploreStatuses lists the explore records in the ledger directory dir
// and where each run stands. It reads who holds the project lock without
// taking it, and changes nothing.
func ExploreStatuses(dir string) ([]ExploreStatus, error) {
	runs, err := ExploreRuns(dir)
	if err != nil || len(runs) == 0 {
		return []ExploreStatus{}, err
	}
	held := ledger.Holding(dir)
	out := make([]ExploreStatus, 0, len(runs))
	for _, r := range runs {
		st := ExploreStatus{ExploreRun: *r, Interrupted: !held, Ledger: explorePath(dir, r.Workspace)}
		switch {
		case held:
			st.Phase = "running, or interrupted (another jj-openspec holds the lock)"
		case r.State == ExploreWritten:
			st.Phase = "interrupted after its findings were written"
		default:
			st.Phase = "interrupted while its worker ran"
		}
		out = append(out, st)
	}
	return out, nil
}

// AbortExplores is `explore --abort`: CleanExplores under the project
// lock, starting nothing.
func AbortExplores(ctx context.Context, env *Env, workspacesDir string) ([]ExploreCleanup, error) {
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return CleanExplores(ctx, env, workspacesDir)
}

func cleanExplore(ctx context.Context, env *Env, workspacesDir string, r *ExploreRun) (ExploreCleanup, error) {
	c := ExploreCleanup{Workspace: r.Workspace, State: r.State, Log: r.Log}
	// The pid file is in the artifacts folder, which workers can write:
	// StopOrphan kills only a process group started for that very file.
	c.StoppedWorker = r.PIDFile != "" && engine.StopOrphan(r.PIDFile)
	if c.StoppedWorker {
		fmt.Fprintf(env.Out, "explore: stopped the worker the interrupted run in %s left\n", r.Workspace)
	}
	b := engine.NewJJBackend(env.Repo, cmp.Or(r.WorkspacesDir, workspacesDir), "openspec-explore-")
	ws := engine.Workspace{Name: r.Workspace, Path: b.Path(r.Workspace)}
	if r.Base != "" {
		ws.Base = []string{r.Base}
	}
	changes := slices.Clone(r.Changes)
	// A run killed before its workspace existed (recorded first) has
	// none to release: the message says only what happened.
	names, err := b.Workspaces(ctx)
	if err != nil {
		return c, fmt.Errorf("list the workspaces: %w", err)
	}
	_, serr := os.Stat(ws.Path)
	folder := !errors.Is(serr, fs.ErrNotExist)
	// Recorded changes mean it was made (a cleanup killed after releasing
	// it left the record).
	existed := slices.Contains(names, r.Workspace) || folder || len(r.Changes) > 0
	if existed && r.State != ExploreWritten {
		// What jj recorded in the workspace says whether the worker changed
		// the findings; when the workspace cannot be read that way (its
		// base abandoned or rewritten, jj failing), the document on disk is
		// kept all the same: the folder is removed next.
		collected, files, why, err := collectExplore(ctx, b, ws)
		if err != nil {
			return c, err
		}
		if collected != nil {
			for _, id := range collected.Changes {
				if !slices.Contains(changes, id) {
					changes = append(changes, id)
				}
			}
		} else if len(changes) > 0 && slices.Contains(names, r.Workspace) {
			// The worker may have committed on top of the change the
			// workspace was made with: the changes from it up to the
			// workspace's working copy are the run's too. A working copy
			// anywhere else is named, never abandoned.
			more, err := env.Repo.ChangeIDs(ctx, jjx.DAGRange(jjx.PresentUnion(changes...), jjx.WorkspaceHead(r.Workspace)))
			if err != nil {
				return c, fmt.Errorf("read the changes of workspace %s: %w", r.Workspace, err)
			}
			for _, id := range more {
				if !slices.Contains(changes, id) {
					changes = append(changes, id)
				}
			}
			if len(more) == 0 {
				wcs, err := env.Repo.WorkingCopies(ctx, []string{r.Workspace})
				if err != nil {
					return c, fmt.Errorf("read the working copy of workspace %s: %w", r.Workspace, err)
				}
				if wc, ok := wcs[r.Workspace]; ok && !slices.Contains(changes, wc.ChangeID) {
					c.Left = wc.ChangeID
				}
			}
		}
		if folder && (collected == nil || slices.Contains(files, r.Findings)) {
			saved, err := saveFindings(env.Dir, ws.Path, r)
			if err != nil {
				return c, err
			}
			c.Saved = saved
			switch {
			case saved == "":
			case collected != nil:
				fmt.Fprintf(env.Out, "explore: the interrupted run's worker had written %s in its workspace (never checked, not written to the working copy): kept at %s\n", r.Findings, saved)
			default:
				fmt.Fprintf(env.Out, "explore: the interrupted run's workspace could not be checked (%s); %s as it is in its workspace (never checked, not written to the working copy) is kept at %s\n", why, r.Findings, saved)
			}
		}
		if collected == nil && c.Saved == "" {
			// No folder (or no document in it): what jj recorded of the
			// document in the workspace's changes, before they are
			// abandoned.
			saved, id, err := saveRecordedFindings(ctx, env, r, changes)
			if err != nil {
				return c, err
			}
			if saved != "" {
				c.Saved = saved
				fmt.Fprintf(env.Out, "explore: %s as the interrupted run's workspace change %s recorded it (never checked, not written to the working copy): kept at %s\n", r.Findings, id, saved)
			}
		}
	}
	if err := b.Release(ctx, ws); err != nil {
		return c, fmt.Errorf("release the workspace: %w", err)
	}
	engine.CrashPoint("explore-clean-released")
	if len(changes) > 0 {
		// Only the changes still visible: a cleanup killed after this
		// abandoned them already.
		if live, err := env.Repo.ChangeIDs(ctx, jjx.PresentUnion(changes...)); err != nil {
			return c, fmt.Errorf("read the workspace's changes %v: %w", changes, err)
		} else if len(live) > 0 {
			revs := make([]string, len(live))
			for i, id := range live {
				revs[i] = jjx.ID(id)
			}
			if err := b.Abandon(ctx, revs...); err != nil {
				return c, fmt.Errorf("abandon the workspace's changes %v: %w", live, err)
			}
			c.Abandoned = live
		}
	}
	if c.Left != "" {
		// jj abandons an empty working copy as its workspace is forgotten.
		if live, err := env.Repo.ChangeIDs(ctx, jjx.PresentUnion(c.Left)); err != nil {
			return c, fmt.Errorf("read the workspace's working-copy change %s: %w", c.Left, err)
		} else if len(live) == 0 {
			c.Left = ""
		}
	}
	if err := removeExplore(env.Dir, r.Workspace); err != nil {
		return c, err
	}
	what := "released its workspace " + r.Workspace
	if !existed {
		what = "it was killed before its workspace " + r.Workspace + " was made: removed its record"
	}
	if len(c.Abandoned) > 0 {
		what += " and abandoned its " + plural.Count(len(c.Abandoned), "change", "changes") + " (`jj op log` and `jj op restore` bring them back)"
	}
	if c.Left != "" {
		what += "; its working copy's change " + c.Left + " is not the one it was made with nor on top of it and is left as is (`jj abandon " + c.Left + "` if you do not want it)"
	}
	if r.State == ExploreWritten {
		what += "; its findings " + r.Findings + " were already in the working copy and are kept"
	}
	fmt.Fprintf(env.Out, "explore: an interrupted explore run (started %s): %s\n", r.Started.Format(time.RFC3339), what)
	return c, nil
}

// collectExplore reads what jj recorded in a killed run's workspace. When
// the workspace is not as it was made (not on its base, unknown to jj,
// unreadable) or cannot be collected, it returns a nil Produced and why;
// an error only when the context was stopped.
func collectExplore(ctx context.Context, b *engine.JJBackend, ws engine.Workspace) (*engine.Produced, []string, string, error) {
	problem, err := b.Check(ctx, ws, false)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, "", err
		}
		return nil, nil, err.Error(), nil
	}
	if problem != "" {
		return nil, nil, "it " + problem, nil
	}
	p, err := b.Collect(ctx, ws)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, "", fmt.Errorf("collect the workspace %s: %w", ws.Path, err)
		}
		return nil, nil, "collect it: " + err.Error(), nil
	}
	var files []string
	for _, f := range p.Files {
		files = append(files, f.Path)
	}
	return &p, files, "", nil
}

// saveFindings copies the findings document a killed run's worker left
// in its workspace to the artifacts folder; it returns the copy's path,
// or "" when there is no document there. Only a regular file inside the
// workspace is read, never what a symbolic link leads to.
func saveFindings(dir, wsPath string, r *ExploreRun) (string, error) {
	src, err := confine.RegularFile(wsPath, r.Findings)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("the findings document the interrupted run's worker left: %w (move it aside, then run `jj openspec explore --abort` again)", err)
	}
	data, err := regfile.ReadNoFollow(src)
	if err != nil {
		return "", fmt.Errorf("read the findings document the interrupted run's worker left: %w", err)
	}
	return keepFindings(dir, r, data)
}

// saveRecordedFindings copies the findings document as the newest of a
// killed run's workspace changes that changed it recorded it to the
// artifacts folder; it returns the copy's path and that change, or ""
// when none of the changes still visible wrote it.
func saveRecordedFindings(ctx context.Context, env *Env, r *ExploreRun, changes []string) (string, string, error) {
	if len(changes) == 0 {
		return "", "", nil
	}
	live, err := env.Repo.ChangeIDs(ctx, jjx.PresentUnion(changes...))
	if err != nil {
		return "", "", fmt.Errorf("read the workspace's changes %v: %w", changes, err)
	}
	for _, id := range live { // newest first
		files, err := env.Repo.Files(ctx, jjx.ID(id))
		if err != nil {
			return "", "", fmt.Errorf("read the files change %s changed: %w", id, err)
		}
		if !slices.ContainsFunc(files, func(f jjx.FileChange) bool { return f.Path == r.Findings && f.Status != "removed" }) {
			continue
		}
		data, err := env.Repo.FileShow(ctx, jjx.ID(id), r.Findings)
		if err != nil {
			return "", "", fmt.Errorf("read %s in change %s: %w", r.Findings, id, err)
		}
		saved, err := keepFindings(env.Dir, r, data)
		return saved, id, err
	}
	return "", "", nil
}

// keepFindings writes a killed run's findings to the artifacts folder,
// never over another copy: a cleanup killed after keeping the worker's
// last version and run again may find only an older one jj recorded, which
// goes beside it (-2, -3, …). The same content is kept once.
func keepFindings(dir string, r *ExploreRun, data []byte) (string, error) {
	art := engine.ArtifactsDir(dir)
	ext := filepath.Ext(r.Findings)
	for n := 1; ; n++ {
		name := r.Workspace + "-findings" + ext
		if n > 1 {
			name = fmt.Sprintf("%s-findings-%d%s", r.Workspace, n, ext)
		}
		dst := filepath.Join(art, name)
		old, err := regfile.ReadNoFollow(dst)
		switch {
		case err == nil && bytes.Equal(old, data):
			return dst, nil
		case err == nil || errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, syscall.ELOOP):
			continue // another copy (or something else) is there
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("keep the interrupted run's findings at %s: %w", dst, err)
		}
		if err := writeAtomic(art, dst, data); err != nil {
			return "", fmt.Errorf("keep the interrupted run's findings at %s: %w", dst, err)
		}
		return dst, nil
	}
}
