package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec/drift"
)

type pipelineRunner struct {
	env  *apply.Env
	run  *PipelineRun
	out  *lockedWriter
	save sync.Mutex
	// checked is the commit whose files the filter prepared the members
	// on ("" on a resume: nothing was).
	checked string
}

// memberEnv is the apply environment of member m: its workspace, the
// project inside it, its own ledger directory.
func (pr *pipelineRunner) memberEnv(m *Member) (*apply.Env, error) {
	root := pr.run.projectIn(m.Path)
	if pr.run.Project == "" {
		// Recorded before the project's folder was: where this
		// invocation found it.
		rel, err := filepath.Rel(pr.env.Repo.Root, pr.env.Root.Dir)
		if err != nil {
			return nil, err
		}
		root.Dir = filepath.Join(m.Path, rel)
	}
	return &apply.Env{
		Repo:    pr.env.Repo.At(m.Path),
		Root:    root,
		Dir:     m.Dir,
		Journal: filepath.Join(m.Dir, "archive-journal"),
		Out:     &prefixWriter{w: pr.out, prefix: "[" + m.Change + "] "},
		Markers: pr.env.Markers,
		Drive:   pr.drive,
		Member:  true,
	}, nil
}

// drive runs a member's engine phases with the pipeline's worker timeout
// when it records one: a member whose apply was under way when the
// pipeline resumed with another --timeout goes on with it (recorded in
// the member's ledger with its next event).
func (pr *pipelineRunner) drive(ctx context.Context, r *engine.Runner) error {
	if t := pr.run.Request.Timeout; t != "" {
		r.Doc.Header.Options.Timeout = t
	}
	return r.Drive(ctx)
}

// syncPlan gives member m's apply, when it is under way, the pipeline's
// verify commands, reviewer and push setting (its tail reads them from
// its plan): a resume may have changed them.
func (pr *pipelineRunner) syncPlan(m *Member) error {
	p, _, err := apply.Unfinished(m.Dir)
	if err != nil || p == nil {
		return err
	}
	req := pr.run.Request
	if slices.Equal(p.Verify, req.Verify) && p.Reviewer == req.Reviewer && p.NoPush == req.NoPush && p.NoPR == req.NoPR {
		return nil
	}
	p.Verify, p.Reviewer, p.NoPush, p.NoPR = slices.Clone(req.Verify), req.Reviewer, req.NoPush, req.NoPR
	if err := apply.WritePlan(m.Dir, p); err != nil {
		return fmt.Errorf("record the pipeline's verify, reviewer and push settings in change %s's apply: %w", m.Change, err)
	}
	return nil
}

// member runs (or resumes) one member's apply; below is the member it is
// stacked on (nil: independent or the bottom).
func (pr *pipelineRunner) member(ctx context.Context, m *Member, below *MemberReport) *MemberReport {
	if rep := pr.report(m); rep.Landed() {
		pr.releaseOrSay(ctx, m) // landed before a resume (killed before its release)
		return rep
	}
	fail := func(err error) *MemberReport {
		rep := pr.report(m)
		rep.Outcome, rep.Reason = OutcomeFailed, firstLine(err.Error())
		rep.Workspace = m.Path
		fmt.Fprintf(pr.out, "pipeline: %s failed: %s\n", m.Change, rep.Reason)
		return rep
	}
	if err := pr.workspace(ctx, m, below); err != nil {
		return fail(err)
	}
	menv, err := pr.memberEnv(m)
	if err != nil {
		return fail(err)
	}
	if err := pr.syncPlan(m); err != nil {
		return fail(err)
	}
	req := pr.run.Request
	req.Change = m.Change
	if below != nil {
		req.PRBase = below.Bookmark
	}
	req.HealthChecked = pr.checkedAlready(ctx, menv, m)
	_, err = apply.Apply(ctx, menv, req)
	rep := pr.report(m)
	if err != nil {
		rep = fail(err)
		return rep
	}
	if rep.Landed() {
		pr.releaseOrSay(ctx, m)
	}
	return rep
}

// releaseOrSay releases landed member m's workspace, printing what was
// left when it could not.
func (pr *pipelineRunner) releaseOrSay(ctx context.Context, m *Member) {
	if err := pr.release(ctx, m); err != nil {
		fmt.Fprintln(pr.out, err)
	}
}

// checkedAlready reports whether the filter's health check of member m
// holds in its workspace, so its apply need not run it again: when the
// check runs the OpenSpec CLI (a native check costs less than finding
// out) and the workspace holds, in the project, the files the filter
// checked (other changes' folders aside). A member stacked on one that
// landed (whose archive changed the specs), or whose change moved since,
// is checked again.
func (pr *pipelineRunner) checkedAlready(ctx context.Context, menv *apply.Env, m *Member) bool {
	if pr.checked == "" {
		return false
	}
	if _, viaCLI, err := apply.NeedsCLI(menv.Root, m.Change); err != nil || !viaCLI {
		return false
	}
	paths, err := menv.Repo.ChangedPaths(ctx, jjx.ID(pr.checked), "@")
	if err != nil {
		return false // unknown: checked again
	}
	project := pr.run.Project
	if project == "" {
		if project, err = apply.RepoRel(pr.env, pr.env.Root.Dir); err != nil {
			return false
		}
	}
	for _, p := range paths {
		rel := p
		if project != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(p, project+"/"); !ok {
				continue // outside the project: the check reads none of it
			}
		}
		if other, ok := strings.CutPrefix(rel, "openspec/changes/"); ok {
			if c, _, _ := strings.Cut(other, "/"); c != m.Change && c != "archive" {
				continue // another change's folder
			}
		}
		return false
	}
	return true
}

// workspace makes member m's workspace when its apply has not started
// (again, when a killed pipeline left one half made): on its proposal
// revision, or, stacked, on the landed member below with the change's
// folder restored from its proposal revision.
func (pr *pipelineRunner) workspace(ctx context.Context, m *Member, below *MemberReport) error {
	_, started, err := apply.ReadPlan(m.Dir)
	if err != nil {
		return err
	}
	if started && m.Path != "" {
		if _, err := os.Stat(m.Path); err == nil {
			return nil // the apply resumes in it
		}
	}
	repo := pr.env.Repo
	name := "openspec-pipe-" + pr.run.RunID + "-" + apply.Slug(m.Change)
	if err := oneFolder(name); err != nil {
		return err
	}
	ws := pr.workspaces()
	if m.Path != "" {
		wss, err := repo.Workspaces(ctx)
		if err != nil {
			return fmt.Errorf("list the workspaces of %s to forget the half-made workspace %s: %w; check that `jj workspace list` works there, then re-run `jj openspec apply` to resume", repo.Root, name, err)
		}
		for _, w := range wss {
			if w.Name == name {
				if err := abandonHalfMade(ctx, repo, m, w); err != nil {
					return err
				}
			}
		}
		if err := ws.Release(ctx, engine.Workspace{Name: name}); err != nil {
			return fmt.Errorf("release the half-made workspace %s: %w", name, err)
		}
	}
	base := m.ProposalRev
	restore := ""
	if below != nil {
		base = below.Commit
		var err error
		if restore, err = pr.stackedArtifacts(ctx, m, base); err != nil {
			return err
		}
	}
	// Recorded before it is made: a resume finds a half-made one.
	if err := pr.saveRun(func() { m.Workspace, m.Path, m.Base = name, ws.Path(name), base }); err != nil {
		return err
	}
	if _, err := ws.Provision(ctx, engine.Workspace{Name: name, Base: []string{base}}); err != nil {
		return fmt.Errorf("add workspace %s for change %s on %s: %w", name, m.Change, record.ShortID(base), err)
	}
	fmt.Fprintf(pr.out, "pipeline: %s in workspace %s on %s\n", m.Change, m.Path, record.ShortID(base))
	engine.CrashPoint("pipeline-workspace")
	if restore == "" {
		return nil
	}
	if err := repo.At(m.Path).RestoreDir(ctx, m.ProposalRev, "@", restore); err != nil {
		return fmt.Errorf("bring change %s's artifacts from %s onto %s: %w", m.Change, record.ShortID(m.ProposalRev), m.Below, err)
	}
	engine.CrashPoint("pipeline-artifacts-restored")
	return pr.keepBase(ctx, m, base)
}

// abandonHalfMade abandons what member m's workspace w, which a killed
// pipeline left half made (its apply never started, so no worker ran in
// it), committed on its recorded base: the artifacts brought onto a
// stacked member, the implementation change its apply began (empty,
// described, so jj would keep it). The backend then releases the
// workspace and provisions it again from the base; nothing of the
// attempt is left in `jj log`.
func abandonHalfMade(ctx context.Context, repo *jjx.Repo, m *Member, w jjx.WorkspaceInfo) error {
	var made []string
	if m.Base != "" && w.CommitID != "" {
		var err error
		if made, err = repo.CommitIDs(ctx, jjx.Range(jjx.ID(m.Base), jjx.ID(w.CommitID))); err != nil {
			return fmt.Errorf("read what the half-made workspace %s committed on %s: %w", w.Name, record.ShortID(m.Base), err)
		}
	}
	// Abandoned first: jj gives the workspace a new empty change on the
	// base, which releasing it then discards.
	if len(made) > 0 {
		revs := make([]string, len(made))
		for i, c := range made {
			revs[i] = jjx.ID(c)
		}
		if err := repo.Abandon(ctx, revs...); err != nil {
			return fmt.Errorf("abandon what the half-made workspace %s committed: %w", w.Name, err)
		}
	}
	return nil
}

// keepBase records, in a stacked member's .openspec.yaml (unless it names
// one), the commit its deltas were written against: the parent of the
// proposal's first revision touching its change folder, or, when that
// revision was rebased since, the parent it had when the files were first
// written (jj's evolution log, as drift reads it). Brought onto the
// member below, the change's history starts there, and the drift check
// would take the member below's specs for its base and let a stale
// MODIFIED requirement overwrite that member's edit instead of merging
// the two.
func (pr *pipelineRunner) keepBase(ctx context.Context, m *Member, below string) error {
	dir, err := apply.RepoRel(pr.env, pr.env.Root.ChangeDir(m.Change))
	if err != nil {
		return err
	}
	repo := pr.env.Repo
	roots, err := repo.Log(ctx, jjx.RootsTouching(jjx.AncestorsNotOf(jjx.ID(m.ProposalRev), jjx.ID(below)), dir))
	if err != nil {
		return fmt.Errorf("find where change %s's proposal starts: %w", m.Change, err)
	}
	if len(roots) != 1 || len(roots[0].Parents) != 1 {
		fmt.Fprintf(pr.out, "pipeline: %s's proposal does not start from one revision: no base recorded; its archive takes %s's specs for its base\n", m.Change, m.Below)
		return nil
	}
	base := roots[0].Parents[0]
	files, err := repo.Files(ctx, jjx.ID(roots[0].CommitID))
	if err != nil {
		return fmt.Errorf("read the files of %s: %w", record.ShortID(roots[0].CommitID), err)
	}
	var added []string
	for _, f := range files {
		if f.Status == "added" && strings.HasPrefix(f.Path, dir+"/") {
			added = append(added, f.Path)
		}
	}
	slices.Sort(added)
	written, err := repo.WrittenOn(ctx, map[string][]string{roots[0].CommitID: added})
	if err != nil {
		return fmt.Errorf("read the evolution of change %s's proposal: %w", m.Change, err)
	}
	for _, f := range added {
		if w := written[roots[0].CommitID][f]; len(w) == 1 {
			base = w[0]
			break
		}
	}
	wrote, err := drift.RecordBaseIfNone(pr.run.projectIn(m.Path), m.Change, base)
	if err != nil {
		return fmt.Errorf("record the base of stacked change %s: %w", m.Change, err)
	}
	if wrote {
		fmt.Fprintf(pr.out, "pipeline: %s was written against %s: recorded as its base (.openspec.yaml), so its archive merges %s's spec edits instead of replacing them\n", m.Change, record.ShortID(base), m.Below)
	}
	return nil
}

// stackedArtifacts returns the change folder (repository path) to bring
// from a stacked member's proposal revision onto base, the landed member
// below: "" when base already holds that revision. Only the folder is
// brought, so revisions of the proposal not below base that change
// anything else are refused rather than dropped.
func (pr *pipelineRunner) stackedArtifacts(ctx context.Context, m *Member, base string) (string, error) {
	repo := pr.env.Repo
	in, err := repo.Contained(ctx, jjx.ID(m.ProposalRev), jjx.Ancestors(jjx.ID(base)))
	if err != nil {
		return "", fmt.Errorf("is %s below %s: %w", record.ShortID(m.ProposalRev), record.ShortID(base), err)
	}
	for _, yes := range in {
		if yes {
			return "", nil
		}
	}
	dir, err := apply.RepoRel(pr.env, pr.env.Root.ChangeDir(m.Change))
	if err != nil {
		return "", err
	}
	own, err := repo.Log(ctx, jjx.AncestorsNotOf(jjx.ID(m.ProposalRev), jjx.ID(base)))
	if err != nil {
		return "", fmt.Errorf("read the revisions of change %s's proposal not below %s: %w", m.Change, m.Below, err)
	}
	var outside []string
	for _, c := range own {
		fs, err := repo.Files(ctx, c.CommitID)
		if err != nil {
			return "", fmt.Errorf("read the files of %s: %w", record.ShortID(c.CommitID), err)
		}
		for _, f := range fs {
			if !strings.HasPrefix(f.Path, dir+"/") {
				outside = append(outside, f.Path)
			}
		}
	}
	if len(outside) > 0 {
		slices.Sort(outside)
		return "", exitcode.New(exitcode.NeedsChoice, "change %s is stacked on %s, but its proposal revision %s (or one below it that %s lacks) also changes %s: only the change's folder is brought onto %s, nothing is dropped silently; rebase the proposal onto %s (`jj rebase -s %s -d %s`) or drop the dependency, then end this pipeline (`jj openspec apply --abort`) and start it again",
			m.Change, m.Below, record.ShortID(m.ProposalRev), m.Below, strings.Join(slices.Compact(outside), ", "), m.Below, m.Below, record.ShortID(m.ProposalRev), apply.BookmarkOf(m.Below))
	}
	return dir, nil
}

// release forgets a landed member's workspace (its commit stays, under
// its bookmark) and removes its folder, through the backend that made
// it. The error says what was left and how to remove it by hand; the
// member has landed all the same.
func (pr *pipelineRunner) release(ctx context.Context, m *Member) error {
	if m.Workspace == "" {
		return nil
	}
	if err := oneFolder(m.Workspace); err != nil {
		return fmt.Errorf("pipeline: %s landed; its workspace was not released: %w", m.Change, err)
	}
	wss, err := pr.env.Repo.Workspaces(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: %s landed; its workspace %s was not released: list the workspaces of %s: %w; once `jj workspace list` works, forget it (`jj workspace forget %s`) and remove %s by hand", m.Change, m.Workspace, pr.env.Repo.Root, err, m.Workspace, m.Path)
	}
	if !slices.ContainsFunc(wss, func(w jjx.WorkspaceInfo) bool { return w.Name == m.Workspace }) {
		return nil // gone already
	}
	if err := pr.workspaces().Release(ctx, engine.Workspace{Name: m.Workspace}); err != nil {
		return fmt.Errorf("pipeline: %s landed; its workspace %s was not released (forget it with `jj workspace forget %s` and remove %s by hand): %w", m.Change, m.Workspace, m.Workspace, m.Path, err)
	}
	return nil
}

// oneFolder refuses a member workspace name that is not one folder name
// (a damaged or edited pipeline record): the backend removes the folder
// of that name under the workspaces folder, never one outside it.
func oneFolder(name string) error {
	if !record.ChangeName.MatchString(name) {
		return exitcode.New(exitcode.Invalid, "workspace name %q in the pipeline record is not one folder name: nothing removed; end the pipeline (`jj openspec apply --abort`) and remove its workspaces yourself", name)
	}
	return nil
}

// workspaceBackend is what a pipeline needs of the engine's backend for
// its members' workspaces: the Provision and Release contract every job's
// workspace goes through.
type workspaceBackend interface {
	Path(name string) string
	Provision(ctx context.Context, ws engine.Workspace) (engine.Workspace, error)
	Release(ctx context.Context, ws engine.Workspace) error
}

// workspaces is the backend of the run's member workspaces: jj
// workspaces in the run's workspaces folder.
func (pr *pipelineRunner) workspaces() workspaceBackend { return pr.run.memberBackend(pr.env.Repo) }

// memberBackend is the backend of the run's member workspaces.
func (r *PipelineRun) memberBackend(repo *jjx.Repo) *engine.JJBackend {
	return engine.NewJJBackend(repo, r.workspacesDir(repo.Root), "openspec-pipe-"+r.RunID+"-")
}

// workspacesDir is the folder the run makes its workspaces in.
func (r *PipelineRun) workspacesDir(root string) string {
	if r.Request.WorkspacesDir != "" {
		return r.Request.WorkspacesDir
	}
	return engine.WorkspacesDir(root)
}

// removeWorkspaceDir removes the workspace folder path, which the run's
// record names, only when it is inside wsDir (as the engine removes
// only its pool's folders): a record naming any other folder is refused.
func removeWorkspaceDir(wsDir, path string) error {
	if err := confine.RemoveUnder(wsDir, path); err != nil {
		return fmt.Errorf("workspace folder: %w", err)
	}
	return nil
}

// saveRun applies change to the run record and writes it, under the lock
// that keeps concurrent members from writing (or reading) it at once.
func (pr *pipelineRunner) saveRun(change func()) error {
	pr.save.Lock()
	defer pr.save.Unlock()
	change()
	return writePipeline(pr.env.Dir, pr.run)
}

// report reads what member m's own ledger says of it.
func (pr *pipelineRunner) report(m *Member) *MemberReport {
	r := pr.run.outcome(m)
	return &r
}

// outcome is what member m's own ledger says of it; a member that landed
// unpublished (--no-push, --no-pr) gets the command that publishes it.
func (run *PipelineRun) outcome(m *Member) MemberReport {
	rep := MemberReport{Change: m.Change, Outcome: OutcomePending, Position: m.Position, Of: m.Of,
		Bookmark: apply.BookmarkOf(m.Change), Verify: "not-run", Unticked: []string{}}
	p, ok, err := apply.ReadPlan(m.Dir)
	if err != nil {
		rep.Outcome, rep.Reason = OutcomeFailed, err.Error()
		return rep
	}
	if !ok {
		return rep
	}
	rep.Bookmark = p.Bookmark
	d, ok, err := engine.Load(m.Dir)
	if err != nil || !ok || d.Header.RunID != p.RunID {
		return rep
	}
	t, st := apply.TailOf(d), engine.Fold(d)
	rep.Phase = apply.PhaseOf(d)
	rep.Commit, rep.PR = t.Bookmarked, t.PR
	switch {
	case t.Archived != "" || t.Applied || t.VerifyGreen:
		rep.Verify = "passed"
	case t.VerifyRed:
		rep.Verify = "failed"
	}
	if t.Applied {
		rep.Outcome = OutcomeLanded
		if m.Stack > 0 {
			rep.Outcome = OutcomeStacked
		}
		rep.PublishCommand = apply.MemberPublishCommand(m.Dir, p, rep.Phase)
		return rep
	}
	if rep.Phase == apply.PhaseWorkers && !st.Complete && st.Halted == "" {
		rep.Workspace = m.Path
		return rep // started, not finished: a resume continues it
	}
	rep.Outcome, rep.Reason, rep.Workspace = OutcomeFailed, rep.Phase, m.Path
	if st.Halted != "" {
		var files []string
		for _, ts := range st.Tasks {
			files = append(files, ts.Conflict...)
		}
		if len(files) > 0 {
			slices.Sort(files)
			rep.Outcome = OutcomeConflicted
			rep.Reason = "halted on conflicts no marker rule resolves (" + strings.Join(slices.Compact(files), ", ") + "): resolve them in its workspace, then resume"
		} else {
			rep.Reason = "halted: " + st.Halted
		}
	}
	if t.Archived == "" && m.Path != "" {
		if u := apply.Unticked(run.projectIn(m.Path), m.Change); u != nil {
			rep.Unticked = u
		}
		if rep.Phase == apply.PhaseTail && len(rep.Unticked) > 0 {
			rep.Reason = "tasks not done block the archive: finish and tick them in its workspace, then resume"
		}
	}
	return rep
}

// link registers a stack's landed members, bottom first, through the
// stack layer (native when enabled, else a --base chain).
func (pr *pipelineRunner) link(ctx context.Context, job []*Member, reports map[string]*MemberReport, mu *sync.Mutex) *StackReport {
	sr := &StackReport{}
	var items, landed []string
	mu.Lock()
	for _, m := range job {
		sr.Members = append(sr.Members, m.Change)
		if r := reports[m.Change]; r.Outcome == OutcomeStacked {
			landed = append(landed, r.Bookmark)
			if r.PR != nil {
				items = append(items, r.Bookmark)
			}
		}
	}
	mu.Unlock()
	switch {
	case pr.run.Request.NoPush || pr.run.Request.NoPR:
		sr.Action, sr.Reason = "none", "--no-push"
		if !pr.run.Request.NoPush {
			sr.Reason = "--no-pr"
		}
		if len(landed) > 1 {
			sr.PublishCommand = forge.LinkCommand(landed)
		}
		return sr
	case len(items) < 2:
		sr.Action, sr.Reason = "none", "fewer than two of its members landed"
		return sr
	}
	lr, err := forge.LinkStack(ctx, pr.env.Repo.Root, items, pr.out)
	if lr != nil {
		sr.Mode, sr.Stack, sr.Action = lr.StackMode, lr.Stack, lr.StackAction
	}
	if err != nil {
		sr.Error = err.Error()
		fmt.Fprintf(pr.out, "pipeline: registering the stack %s failed: %v\n", strings.Join(items, " ← "), err)
		return sr
	}
	fmt.Fprintf(pr.out, "pipeline: stack %s registered (%s)\n", strings.Join(items, " ← "), sr.Mode)
	return sr
}
