package osapply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// PipelineFile is the pipeline's record beside the engine's ledger; each
// member's own apply run lives in PipelineDir/<change>/.
const (
	PipelineFile = "pipeline.toml"
	pipelineDir  = "pipeline"
)

// PipelineRequest is a multi-change `jj openspec apply`.
type PipelineRequest struct {
	Names     []string
	Selectors []Selector
	After     []Dep
	// Apply is every member's apply request (its Change is set per
	// member).
	Apply       Request
	MaxParallel int
}

// PipelinePlan is what a pipeline will do, resolved before anything is
// dispatched.
type PipelinePlan struct {
	Supply Supply
	Layout Layout
	// Checked is the commit of @ whose files the filter prepared the
	// members on ("" when @ moved while it read them).
	Checked string
}

// Width is the number of workspaces the pipeline provisions: one per
// member, and each member's worker workspaces.
func (p *PipelinePlan) Width() int {
	n := 0
	for _, m := range p.Runnable() {
		n += 1 + p.Supply.Width[m]
	}
	return n
}

// Runnable lists the members that will run: independent ones, then the
// stacks bottom first.
func (p *PipelinePlan) Runnable() []string {
	out := slices.Clone(p.Layout.Independent)
	for _, s := range p.Layout.Stacks {
		out = append(out, s...)
	}
	return out
}

// PlanPipeline resolves the supply, filters it and arranges the members:
// it reads only, changes nothing.
func PlanPipeline(ctx context.Context, env *Env, req PipelineRequest) (*PipelinePlan, error) {
	if err := CheckTimeout(req.Apply.Timeout); err != nil {
		return nil, err
	}
	cands, err := Candidates(env.Root, req.Names, req.Selectors)
	if err != nil {
		return nil, err
	}
	// A name that cannot land refuses the plan: its member would run,
	// be archived, and only then fail to push or archive.
	if err := CheckNames(env.Root, cands); err != nil {
		return nil, err
	}
	// When a health check runs the OpenSpec CLI, @ is read before and
	// after the filter: the same commit is the files it read (a member
	// whose workspace holds them is not checked again). Unread, nothing
	// is reused.
	viaCLI := slices.ContainsFunc(cands, func(c string) bool {
		if !memberName.MatchString(c) {
			return false // the filter excludes it
		}
		_, yes, err := NeedsCLI(env.Root, c)
		return err == nil && yes
	})
	before := ""
	if viaCLI {
		if at, err := env.Repo.One(ctx, "@"); err == nil {
			before = at.CommitID
		}
	}
	sup, err := Filter(ctx, env, cands, req.Apply)
	if err != nil {
		return nil, err
	}
	checked := ""
	if before != "" {
		if at, err := env.Repo.One(ctx, "@"); err == nil && at.CommitID == before {
			checked = before
		}
	}
	deps := slices.Clone(req.After)
	for _, m := range sup.Members {
		ds, err := ProposalDeps(env.Root, m)
		if err != nil {
			return nil, err
		}
		deps = append(deps, ds...)
	}
	return &PipelinePlan{Supply: sup, Layout: Arrange(sup.Members, deps), Checked: checked}, nil
}

// PipelineRun is the pipeline's ledger record: written atomically when it
// starts and whenever a member's workspace is made.
type PipelineRun struct {
	Version     int         `toml:"version" json:"-"`
	RunID       string      `toml:"run_id" json:"run_id"`
	Request     Request     `toml:"request" json:"-"`
	MaxParallel int         `toml:"max_parallel" json:"max_parallel"`
	Layout      Layout      `toml:"layout" json:"layout"`
	Excluded    []Exclusion `toml:"excluded,omitempty" json:"excluded"`
	Members     []*Member   `toml:"members" json:"members"`
	Aborted     bool        `toml:"aborted,omitempty" json:"aborted,omitempty"`
	// Project is the OpenSpec project's folder relative to the repository
	// root, slash-separated ("." at the root): where each member finds
	// it in its workspace. Empty in runs recorded before it was, which
	// look for an openspec/ folder from the workspace root up.
	Project string `toml:"project,omitempty" json:"project,omitempty"`
}

// projectIn is the OpenSpec project of run in the workspace at path.
func (r *PipelineRun) projectIn(path string) spec.Root {
	root := spec.Root{Dir: path, Bound: path}
	if r.Project != "" && filepath.IsLocal(filepath.FromSlash(r.Project)) {
		root.Dir = filepath.Join(path, filepath.FromSlash(r.Project))
		return root
	}
	if fr, err := spec.FindRoot(path); err == nil {
		root.Dir = fr.Dir
	}
	return root
}

// Member is one change of the pipeline.
type Member struct {
	Change string `toml:"change" json:"change"`
	// Stack is the 1-based stack the member is in (0: independent), at
	// Position (1: the bottom) of Of.
	Stack    int    `toml:"stack,omitempty" json:"stack,omitempty"`
	Position int    `toml:"position,omitempty" json:"position,omitempty"`
	Of       int    `toml:"of,omitempty" json:"of,omitempty"`
	Below    string `toml:"below,omitempty" json:"below,omitempty"`
	Dir      string `toml:"dir" json:"ledger_dir"`
	// ProposalRev is the commit holding the change's artifacts when the
	// pipeline started.
	ProposalRev string `toml:"proposal_rev" json:"proposal_rev"`
	Workspace   string `toml:"workspace,omitempty" json:"workspace,omitempty"`
	Path        string `toml:"path,omitempty" json:"path,omitempty"`
	// Base is the commit the member's workspace was made on.
	Base string `toml:"base,omitempty" json:"base,omitempty"`
}

// ReadPipeline reads the pipeline record of ledger directory dir.
func ReadPipeline(dir string) (*PipelineRun, bool, error) {
	var p PipelineRun
	err := ledger.ReadFile(filepath.Join(dir, PipelineFile), &p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &p, true, nil
}

func writePipeline(dir string, p *PipelineRun) error {
	p.Version = 1
	return ledger.WriteFile(filepath.Join(dir, PipelineFile), p)
}

// UnfinishedPipeline returns the pipeline of dir when it is neither
// aborted nor has every runnable member landed.
func UnfinishedPipeline(dir string) (*PipelineRun, error) {
	p, ok, err := ReadPipeline(dir)
	if err != nil || !ok || p.Aborted {
		return nil, err
	}
	for _, m := range p.Members {
		if !p.outcome(m).Landed() {
			return p, nil
		}
	}
	return nil, nil
}

// Outcomes of a member.
const (
	OutcomeLanded  = "landed"
	OutcomeStacked = "stacked"
	OutcomeFailed  = "failed"
	OutcomeBlocked = "blocked" // not run: a dependency failed or is in a cycle
	// OutcomeConflicted: the member's integration halted on conflicts
	// that no marker rule (tasks.md ticks) resolves.
	OutcomeConflicted = "conflicted"
	OutcomePending    = "pending" // not run yet (a resumed pipeline runs it)
)

// MemberReport is one change's line of the pipeline's summary.
type MemberReport struct {
	Change   string   `json:"change"`
	Outcome  string   `json:"outcome"`
	Position int      `json:"position,omitempty"`
	Of       int      `json:"of,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Phase    string   `json:"phase,omitempty"`
	Bookmark string   `json:"bookmark"`
	Commit   string   `json:"commit,omitempty"`
	PR       *PRView  `json:"pr,omitempty"`
	Verify   string   `json:"verify"` // passed, failed or not-run
	Unticked []string `json:"unticked"`
	// Workspace is kept for a member that did not land.
	Workspace string `json:"workspace,omitempty"`
}

// Landed reports whether the member landed (alone or stacked).
func (m MemberReport) Landed() bool {
	return m.Outcome == OutcomeLanded || m.Outcome == OutcomeStacked
}

// StackReport is a stitched stack's registration through the stack layer.
type StackReport struct {
	Members []string `json:"members"`
	Mode    string   `json:"mode,omitempty"` // native or chain
	Stack   int      `json:"stack,omitempty"`
	Action  string   `json:"action,omitempty"`
	// Reason says why a stack was not registered (Action "none").
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// PipelineResult is the pipeline's summary, printed once.
type PipelineResult struct {
	RunID    string         `json:"run_id"`
	Members  []MemberReport `json:"members"`
	Excluded []Exclusion    `json:"excluded"`
	Blocked  []Exclusion    `json:"blocked"`
	Cycles   [][]string     `json:"cycles"`
	Stacks   []StackReport  `json:"stacks"`
	Notes    []string       `json:"notes"`
}

// Landed reports whether every member that could run landed.
func (r *PipelineResult) Landed() bool {
	for _, m := range r.Members {
		if !m.Landed() {
			return false
		}
	}
	return true
}

// StartPipeline records a new pipeline run of plan in env's ledger and
// runs it, holding the project lock (env.Dir) throughout; an apply or a
// pipeline still unfinished in the ledger refuses it (exit 5).
func StartPipeline(ctx context.Context, env *Env, plan *PipelinePlan, req PipelineRequest) (*PipelineResult, error) {
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := RefuseUnfinished(env.Dir); err != nil {
		return nil, err
	}
	if err := engine.NeedWorker(req.Apply.Worker, env.Repo.Root); err != nil {
		return nil, err
	}
	engine.PausePoint("pipeline-planned")
	// What publishing needs, once for every member, before any runs.
	if runnable := plan.Runnable(); len(runnable) > 0 {
		if err := checkPublish(ctx, env.Repo.Root, &Plan{Bookmark: BookmarkOf(runnable[0]), NoPush: req.Apply.NoPush, NoPR: req.Apply.NoPR}); err != nil {
			return nil, err
		}
	}
	project, err := repoRel(env, env.Root.Dir)
	if err != nil {
		return nil, err
	}
	run := &PipelineRun{RunID: newID(), Request: req.Apply, MaxParallel: req.MaxParallel,
		Layout: plan.Layout, Excluded: plan.Supply.Excluded, Project: project}
	run.Request.Change = ""
	revs, err := proposalRevs(ctx, env, plan.Runnable())
	if err != nil {
		return nil, err
	}
	for _, m := range plan.Layout.Independent {
		run.Members = append(run.Members, &Member{Change: m})
	}
	for i, s := range plan.Layout.Stacks {
		for k, m := range s {
			mb := &Member{Change: m, Stack: i + 1, Position: k + 1, Of: len(s)}
			if k > 0 {
				mb.Below = s[k-1]
			}
			run.Members = append(run.Members, mb)
		}
	}
	for _, m := range run.Members {
		m.ProposalRev = revs[m.Change]
		m.Dir = filepath.Join(env.Dir, pipelineDir, run.RunID, m.Change)
	}
	if err := writePipeline(env.Dir, run); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Out, "pipeline: run %s, %s\n", run.RunID, plural.Count(len(run.Members), "member", "members"))
	return runPipeline(ctx, env, run, plan.Checked)
}

// proposalRevs finds, for each member, the newest revision of ::@ that
// touched its change folder: the revision its workspace starts from. A
// change whose artifacts are only in @ (uncommitted) is refused: @ is the
// orchestrating workspace's, not a member's.
func proposalRevs(ctx context.Context, env *Env, members []string) (map[string]string, error) {
	at, err := env.Repo.One(ctx, "@")
	if err != nil {
		return nil, fmt.Errorf("read @ of %s: %w", env.Repo.Root, err)
	}
	out := map[string]string{}
	for _, m := range members {
		dir, err := repoRel(env, env.Root.ChangeDir(m))
		if err != nil {
			return nil, err
		}
		added, err := env.Repo.AddedUnder(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("find the revision of change %s's artifacts: %w", m, err)
		}
		if len(added) == 0 {
			return nil, exitcode.New(exitcode.NeedsChoice, "change %s: no revision of ::@ holds its artifacts (%s); commit them first", m, dir)
		}
		if added[0].CommitID == at.CommitID {
			return nil, exitcode.New(exitcode.NeedsChoice, "change %s: its artifacts have uncommitted edits in @ (%s): a pipeline starts each member from a revision; commit them first (`jj commit -m \"docs(openspec): %s change artifacts\"`), then re-run", m, dir, m)
		}
		out[m] = added[0].CommitID
	}
	return out, nil
}

func repoRel(env *Env, p string) (string, error) {
	rel, err := filepath.Rel(env.Repo.Root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", exitcode.New(exitcode.Usage, "%s is not inside the jj workspace %s", p, env.Repo.Root)
	}
	return filepath.ToSlash(rel), nil
}

// PipelineSettings are the settings a resumed pipeline is given for its
// members that have not landed; an empty field keeps the recorded one.
type PipelineSettings struct {
	Worker   string
	Timeout  string
	Reviewer string
	// Verify, when set, replaces the verify commands (and ends a
	// --no-verify start: the gate has commands again).
	Verify      []string
	NoPush      *bool
	NoPR        *bool
	MaxParallel int
}

// ResumePipeline records set into run, so a later resume keeps it, and
// runs the members that have not landed with it: one not started yet
// starts with it, one whose apply is under way goes on with it (its
// worker and worker timeout, its verify commands, reviewer and push).
// It takes the project lock (env.Dir) and reads the pipeline again under
// it: run was read before, and one aborted or finished in between is not
// run again, nor its record overwritten.
func ResumePipeline(ctx context.Context, env *Env, run *PipelineRun, set PipelineSettings) (*PipelineResult, error) {
	engine.PausePoint("pipeline-resume-read")
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	was := run.RunID
	if run, err = UnfinishedPipeline(env.Dir); err != nil {
		return nil, err
	}
	if run == nil || run.RunID != was {
		return nil, exitcode.New(exitcode.NeedsChoice, "apply: pipeline %s was aborted or finished while this apply waited for the lock; nothing was run (`jj openspec apply --status` shows it)", was)
	}
	fmt.Fprintf(env.Out, "apply: resuming pipeline %s\n", run.RunID)
	return resumePipeline(ctx, env, run, set)
}

// resumePipeline is ResumePipeline under the lock, run read under it.
func resumePipeline(ctx context.Context, env *Env, run *PipelineRun, set PipelineSettings) (*PipelineResult, error) {
	if err := CheckTimeout(set.Timeout); err != nil {
		return nil, err
	}
	if set.MaxParallel < 0 {
		return nil, exitcode.New(exitcode.Usage, "--max-parallel %d: give a positive number of members at once", set.MaxParallel)
	}
	var took []string
	req := &run.Request
	if set.Worker != "" && set.Worker != req.Worker {
		req.Worker = set.Worker
		took = append(took, "worker "+set.Worker)
	}
	if set.Timeout != "" && set.Timeout != req.Timeout {
		req.Timeout = set.Timeout
		took = append(took, "timeout "+set.Timeout)
	}
	if set.Verify != nil && (!slices.Equal(set.Verify, req.Verify) || req.NoVerify) {
		req.Verify, req.NoVerify = slices.Clone(set.Verify), false
		took = append(took, "verify "+strings.Join(set.Verify, "; "))
	}
	if set.Reviewer != "" && set.Reviewer != req.Reviewer {
		req.Reviewer = set.Reviewer
		took = append(took, "reviewer "+set.Reviewer)
	}
	if set.NoPush != nil && *set.NoPush != req.NoPush {
		req.NoPush = *set.NoPush
		took = append(took, fmt.Sprintf("no-push %t", req.NoPush))
	}
	if set.NoPR != nil && *set.NoPR != req.NoPR {
		req.NoPR = *set.NoPR
		took = append(took, fmt.Sprintf("no-pr %t", req.NoPR))
	}
	if set.MaxParallel > 0 && set.MaxParallel != run.MaxParallel {
		run.MaxParallel = set.MaxParallel
		took = append(took, fmt.Sprintf("max-parallel %d", run.MaxParallel))
	}
	if len(took) > 0 {
		if err := writePipeline(env.Dir, run); err != nil {
			return nil, err
		}
		fmt.Fprintf(env.Out, "pipeline: members not landed go on with %s (recorded)\n", strings.Join(took, ", "))
	}
	return RunPipeline(ctx, env, run)
}

// RunPipeline runs (or resumes) every member of run: independent members
// and stacks concurrently up to run.MaxParallel, each stack's members one
// after another, each member an ordinary apply in its own workspace. It
// returns the summary; the error is non-nil when a member did not land,
// a cycle blocked members, or a stack of landed members was not registered.
func RunPipeline(ctx context.Context, env *Env, run *PipelineRun) (*PipelineResult, error) {
	return runPipeline(ctx, env, run, "")
}

// runPipeline is RunPipeline; checked, when set, is the commit whose
// files the filter prepared the members on (PipelinePlan.Checked).
func runPipeline(ctx context.Context, env *Env, run *PipelineRun, checked string) (*PipelineResult, error) {
	var jobs [][]*Member
	stacks := map[int]int{}
	for _, m := range run.Members {
		if m.Stack == 0 {
			jobs = append(jobs, []*Member{m})
			continue
		}
		if i, ok := stacks[m.Stack]; ok {
			jobs[i] = append(jobs[i], m)
			continue
		}
		stacks[m.Stack] = len(jobs)
		jobs = append(jobs, []*Member{m})
	}
	par := run.MaxParallel
	if par < 1 {
		par = 1
	}
	pr := &pipelineRunner{env: env, run: run, out: &lockedWriter{w: env.Out}, checked: checked}
	reports := map[string]*MemberReport{}
	stackReports := make([]*StackReport, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for ji, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var below *MemberReport
			for _, m := range job {
				var rep *MemberReport
				switch {
				case below != nil && below.Outcome != OutcomeStacked:
					rep = pr.report(m)
					if rep.Outcome == OutcomePending {
						rep.Outcome, rep.Reason = OutcomeBlocked, fmt.Sprintf("stacked on %s, which did not land", below.Change)
					}
				default:
					rep = pr.member(ctx, m, below)
				}
				mu.Lock()
				reports[m.Change] = rep
				mu.Unlock()
				below = rep
			}
			if len(job) > 1 {
				stackReports[ji] = pr.link(ctx, job, reports, &mu)
			}
		}()
	}
	wg.Wait()
	res := newResult(run)
	for _, m := range run.Members {
		res.Members = append(res.Members, *reports[m.Change])
	}
	for _, s := range stackReports {
		if s != nil {
			res.Stacks = append(res.Stacks, *s)
		}
	}
	return res, pipelineErr(res, run.Layout)
}

// pipelineErr is nil when every member landed and every stack of landed
// members was registered; else it names the members that did not land,
// the cycles and the stacks not registered.
func pipelineErr(res *PipelineResult, l Layout) error {
	var bad []string
	for _, m := range res.Members {
		if !m.Landed() {
			bad = append(bad, fmt.Sprintf("%s (%s: %s)", m.Change, m.Outcome, m.Reason))
		}
	}
	var errs []error
	if err := l.CycleError(); err != nil {
		errs = append(errs, err)
	}
	if len(bad) > 0 {
		errs = append(errs, exitcode.New(exitcode.Failure, "pipeline: %s did not land: %s; their workspaces are kept; fix them and re-run `jj openspec apply` to resume, or `jj openspec apply --abort`", plural.Count(len(bad), "member", "members"), strings.Join(bad, "; ")))
	}
	// A stack whose members landed but whose registration failed is
	// work not done: said, and how to finish it.
	bookmark := map[string]string{}
	for _, m := range res.Members {
		bookmark[m.Change] = m.Bookmark
	}
	for _, s := range res.Stacks {
		if s.Error == "" {
			continue
		}
		var items []string
		for _, c := range s.Members {
			items = append(items, bookmark[c])
		}
		errs = append(errs, exitcode.New(exitcode.Failure, "pipeline: the stack %s was not registered (%s); its members' pull requests are open; register it with `gh specstack link %s`", strings.Join(s.Members, " <- "), firstLine(s.Error), strings.Join(items, " ")))
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return exitcode.Wrap(exitcode.Failure, errors.Join(errs...))
}

type pipelineRunner struct {
	env  *Env
	run  *PipelineRun
	out  *lockedWriter
	save sync.Mutex
	// checked is the commit whose files the filter prepared the members
	// on ("" on a resume: nothing was).
	checked string
}

// memberEnv is the apply environment of member m: its workspace, the
// project inside it, its own ledger directory.
func (pr *pipelineRunner) memberEnv(m *Member) (*Env, error) {
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
	return &Env{
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
	p, _, err := Unfinished(m.Dir)
	if err != nil || p == nil {
		return err
	}
	req := pr.run.Request
	if slices.Equal(p.Verify, req.Verify) && p.Reviewer == req.Reviewer && p.NoPush == req.NoPush && p.NoPR == req.NoPR {
		return nil
	}
	p.Verify, p.Reviewer, p.NoPush, p.NoPR = slices.Clone(req.Verify), req.Reviewer, req.NoPush, req.NoPR
	if err := writePlan(m.Dir, p); err != nil {
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
	_, err = Apply(ctx, menv, req)
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
func (pr *pipelineRunner) checkedAlready(ctx context.Context, menv *Env, m *Member) bool {
	if pr.checked == "" {
		return false
	}
	if _, viaCLI, err := NeedsCLI(menv.Root, m.Change); err != nil || !viaCLI {
		return false
	}
	paths, err := menv.Repo.ChangedPaths(ctx, jjx.ID(pr.checked), "@")
	if err != nil {
		return false // unknown: checked again
	}
	project := pr.run.Project
	if project == "" {
		if project, err = repoRel(pr.env, pr.env.Root.Dir); err != nil {
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
	_, started, err := ReadPlan(m.Dir)
	if err != nil {
		return err
	}
	if started && m.Path != "" {
		if _, err := os.Stat(m.Path); err == nil {
			return nil // the apply resumes in it
		}
	}
	repo := pr.env.Repo
	name := "openspec-pipe-" + pr.run.RunID + "-" + Slug(m.Change)
	if m.Path != "" {
		wss, err := repo.Workspaces(ctx)
		if err != nil {
			return fmt.Errorf("list the workspaces of %s to forget the half-made workspace %s: %w; check that `jj workspace list` works there, then re-run `jj openspec apply` to resume", repo.Root, name, err)
		}
		for _, w := range wss {
			if w.Name == name {
				if err := dropHalfMade(ctx, repo, m, w); err != nil {
					return err
				}
			}
		}
		if err := removeWorkspaceDir(pr.run.workspacesDir(repo.Root), m.Path); err != nil {
			return fmt.Errorf("remove the half-made workspace: %w", err)
		}
	}
	wsDir := pr.run.workspacesDir(repo.Root)
	if err := os.MkdirAll(wsDir, 0o755); err != nil {
		return fmt.Errorf("make the workspaces folder %s: %w", wsDir, err)
	}
	base := m.ProposalRev
	restore := ""
	if below != nil {
		base = below.Commit
		if restore, err = pr.stackedArtifacts(ctx, m, base); err != nil {
			return err
		}
	}
	// Recorded before it is made: a resume finds a half-made one.
	if err := pr.saveRun(func() { m.Workspace, m.Path, m.Base = name, filepath.Join(wsDir, name), base }); err != nil {
		return err
	}
	if err := repo.WorkspaceAdd(ctx, jjx.AddWorkspaceOptions{Name: name, Path: m.Path, Parents: []string{base}}); err != nil {
		return fmt.Errorf("add workspace %s for change %s on %s: %w", name, m.Change, shortID(base), err)
	}
	fmt.Fprintf(pr.out, "pipeline: %s in workspace %s on %s\n", m.Change, m.Path, shortID(base))
	engine.CrashPoint("pipeline-workspace")
	if restore == "" {
		return nil
	}
	if err := repo.At(m.Path).RestoreDir(ctx, m.ProposalRev, "@", restore); err != nil {
		return fmt.Errorf("bring change %s's artifacts from %s onto %s: %w", m.Change, shortID(m.ProposalRev), m.Below, err)
	}
	engine.CrashPoint("pipeline-artifacts-restored")
	return pr.keepBase(ctx, m, base)
}

// dropHalfMade forgets member m's workspace w, which a killed pipeline
// left half made (its apply never started, so no worker ran in it), with
// what was committed in it on its recorded base: the artifacts brought
// onto a stacked member, the implementation change its apply began
// (empty, described, so jj would keep it). The workspace is made again
// from the base; nothing of the attempt is left in `jj log`.
func dropHalfMade(ctx context.Context, repo *jjx.Repo, m *Member, w jjx.WorkspaceInfo) error {
	var made []string
	if m.Base != "" && w.CommitID != "" {
		var err error
		if made, err = repo.CommitIDs(ctx, jjx.ID(m.Base)+".."+jjx.ID(w.CommitID)); err != nil {
			return fmt.Errorf("read what the half-made workspace %s committed on %s: %w", w.Name, shortID(m.Base), err)
		}
	}
	// Abandoned first: jj gives the workspace a new empty change on the
	// base, which forgetting it then discards.
	if len(made) > 0 {
		revs := make([]string, len(made))
		for i, c := range made {
			revs[i] = jjx.ID(c)
		}
		if err := repo.Abandon(ctx, revs...); err != nil {
			return fmt.Errorf("abandon what the half-made workspace %s committed: %w", w.Name, err)
		}
	}
	if err := repo.WorkspaceForget(ctx, w.Name); err != nil {
		return fmt.Errorf("forget the half-made workspace %s: %w", w.Name, err)
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
	dir, err := repoRel(pr.env, pr.env.Root.ChangeDir(m.Change))
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
		return fmt.Errorf("read the files of %s: %w", shortID(roots[0].CommitID), err)
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
		fmt.Fprintf(pr.out, "pipeline: %s was written against %s: recorded as its base (.openspec.yaml), so its archive merges %s's spec edits instead of replacing them\n", m.Change, shortID(base), m.Below)
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
		return "", fmt.Errorf("is %s below %s: %w", shortID(m.ProposalRev), shortID(base), err)
	}
	for _, yes := range in {
		if yes {
			return "", nil
		}
	}
	dir, err := repoRel(pr.env, pr.env.Root.ChangeDir(m.Change))
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
			return "", fmt.Errorf("read the files of %s: %w", shortID(c.CommitID), err)
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
			m.Change, m.Below, shortID(m.ProposalRev), m.Below, strings.Join(slices.Compact(outside), ", "), m.Below, m.Below, shortID(m.ProposalRev), BookmarkOf(m.Below))
	}
	return dir, nil
}

// release forgets a landed member's workspace (its commit stays, under
// its bookmark) and removes its folder. The error says what was left and
// how to remove it by hand; the member has landed all the same.
func (pr *pipelineRunner) release(ctx context.Context, m *Member) error {
	if m.Workspace == "" {
		return nil
	}
	wss, err := pr.env.Repo.Workspaces(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: %s landed; its workspace %s was not released: list the workspaces of %s: %w; once `jj workspace list` works, forget it (`jj workspace forget %s`) and remove %s by hand", m.Change, m.Workspace, pr.env.Repo.Root, err, m.Workspace, m.Path)
	}
	if !slices.ContainsFunc(wss, func(w jjx.WorkspaceInfo) bool { return w.Name == m.Workspace }) {
		return nil // gone already
	}
	if err := pr.env.Repo.WorkspaceForget(ctx, m.Workspace); err != nil {
		return fmt.Errorf("pipeline: %s landed; forgetting its workspace %s failed (remove it by hand): %w", m.Change, m.Workspace, err)
	}
	if err := removeWorkspaceDir(pr.run.workspacesDir(pr.env.Repo.Root), m.Path); err != nil {
		return fmt.Errorf("pipeline: %s landed; its workspace %s is forgotten but its folder %s could not be removed (remove it by hand): %w", m.Change, m.Workspace, m.Path, err)
	}
	return nil
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
	rel, err := filepath.Rel(wsDir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("workspace folder %s is outside the workspaces folder %s: not removed; remove it yourself", path, wsDir)
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
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

// outcome is what member m's own ledger says of it.
func (run *PipelineRun) outcome(m *Member) MemberReport {
	rep := MemberReport{Change: m.Change, Outcome: OutcomePending, Position: m.Position, Of: m.Of,
		Bookmark: BookmarkOf(m.Change), Verify: "not-run", Unticked: []string{}}
	p, ok, err := ReadPlan(m.Dir)
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
	t, st := tailOf(d), engine.Fold(d)
	rep.Phase = PhaseOf(d)
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
		return rep
	}
	if rep.Phase == PhaseWorkers && !st.Complete && st.Halted == "" {
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
		if u := unticked(run.projectIn(m.Path), m.Change); u != nil {
			rep.Unticked = u
		}
		if rep.Phase == PhaseTail && len(rep.Unticked) > 0 {
			rep.Reason = "tasks not done block the archive: finish and tick them in its workspace, then resume"
		}
	}
	return rep
}

// link registers a stack's landed members, bottom first, through the
// stack layer (native when enabled, else a --base chain).
func (pr *pipelineRunner) link(ctx context.Context, job []*Member, reports map[string]*MemberReport, mu *sync.Mutex) *StackReport {
	sr := &StackReport{}
	var items []string
	mu.Lock()
	for _, m := range job {
		sr.Members = append(sr.Members, m.Change)
		if r := reports[m.Change]; r.Outcome == OutcomeStacked && r.PR != nil {
			items = append(items, r.Bookmark)
		}
	}
	mu.Unlock()
	switch {
	case pr.run.Request.NoPush:
		sr.Action, sr.Reason = "none", "--no-push"
		return sr
	case pr.run.Request.NoPR:
		sr.Action, sr.Reason = "none", "--no-pr"
		return sr
	case len(items) < 2:
		sr.Action, sr.Reason = "none", "fewer than two of its members landed"
		return sr
	}
	lr, err := linkStack(ctx, pr.env.Repo.Root, items, pr.out)
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

// ReportPipeline is the summary of run as its members' ledgers tell it
// (status), without running anything.
func ReportPipeline(run *PipelineRun) *PipelineResult {
	res := newResult(run)
	for _, m := range run.Members {
		res.Members = append(res.Members, run.outcome(m))
	}
	return res
}

// newResult is run's summary without its members' lines.
func newResult(run *PipelineRun) *PipelineResult {
	return &PipelineResult{RunID: run.RunID, Excluded: run.Excluded, Blocked: run.Layout.Blocked,
		Cycles: run.Layout.Cycles, Notes: run.Layout.Notes}
}

// lockedWriter serialises the members' progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter starts every line with prefix.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var s strings.Builder
	for _, c := range string(b) {
		if !p.mid {
			s.WriteString(p.prefix)
			p.mid = true
		}
		s.WriteRune(c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := io.WriteString(p.w, s.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// RefuseUnfinished refuses a new run while an apply or a pipeline is
// unfinished in the ledger dir (exit 5, saying how to resume or undo it).
func RefuseUnfinished(dir string) error {
	if p, err := UnfinishedPipeline(dir); err != nil || p != nil {
		if err != nil {
			return err
		}
		return UnfinishedPipelineError(p)
	}
	if p, _, err := Unfinished(dir); err != nil || p != nil {
		if err != nil {
			return err
		}
		return exitcode.New(exitcode.NeedsChoice, "an unfinished apply of change %q (run %s) is in the ledger: `jj openspec apply %s` resumes it, `jj openspec apply --abort` undoes it", p.Change, p.RunID, p.Change)
	}
	return nil
}

// UnfinishedPipelineError refuses a new apply while pipeline p is
// unfinished.
func UnfinishedPipelineError(p *PipelineRun) error {
	return exitcode.New(exitcode.NeedsChoice, "an unfinished pipeline (run %s) is in the ledger: `jj openspec apply` resumes it, `jj openspec apply --abort` ends it", p.RunID)
}
