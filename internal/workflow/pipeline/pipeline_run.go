package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/spec"
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
	Apply       apply.Request
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
func PlanPipeline(ctx context.Context, env *apply.Env, req PipelineRequest) (*PipelinePlan, error) {
	if err := apply.CheckTimeout(req.Apply.Timeout); err != nil {
		return nil, err
	}
	cands, err := Candidates(env.Root, req.Names, req.Selectors)
	if err != nil {
		return nil, err
	}
	// A name that cannot land refuses the plan: its member would run,
	// be archived, and only then fail to push or archive.
	if err := apply.CheckNames(env.Root, cands); err != nil {
		return nil, err
	}
	// When a health check runs the OpenSpec CLI, @ is read before and
	// after the filter: the same commit is the files it read (a member
	// whose workspace holds them is not checked again). Unread, nothing
	// is reused.
	viaCLI := slices.ContainsFunc(cands, func(c string) bool {
		if !record.ChangeName.MatchString(c) {
			return false // the filter excludes it
		}
		_, yes, err := apply.NeedsCLI(env.Root, c)
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
	Version     int           `toml:"version" json:"-"`
	RunID       string        `toml:"run_id" json:"run_id"`
	Request     apply.Request `toml:"request" json:"-"`
	MaxParallel int           `toml:"max_parallel" json:"max_parallel"`
	Layout      Layout        `toml:"layout" json:"layout"`
	Excluded    []Exclusion   `toml:"excluded,omitempty" json:"excluded"`
	Members     []*Member     `toml:"members" json:"members"`
	Aborted     bool          `toml:"aborted,omitempty" json:"aborted,omitempty"`
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
	return ledger.ReadOptional[PipelineRun](filepath.Join(dir, PipelineFile))
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
	Change   string        `json:"change"`
	Outcome  string        `json:"outcome"`
	Position int           `json:"position,omitempty"`
	Of       int           `json:"of,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Phase    string        `json:"phase,omitempty"`
	Bookmark string        `json:"bookmark"`
	Commit   string        `json:"commit,omitempty"`
	PR       *forge.PRView `json:"pr,omitempty"`
	Verify   string        `json:"verify"` // passed, failed or not-run
	Unticked []string      `json:"unticked"`
	// Workspace is kept for a member that did not land.
	Workspace string `json:"workspace,omitempty"`
	// PublishCommand does what --no-push or --no-pr left undone.
	PublishCommand string `json:"publish_command,omitempty"`
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
	// PublishCommand links the landed members once each is published,
	// when --no-push or --no-pr kept the pipeline from doing it.
	PublishCommand string `json:"publish_command,omitempty"`
	Error          string `json:"error,omitempty"`
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
func StartPipeline(ctx context.Context, env *apply.Env, plan *PipelinePlan, req PipelineRequest) (*PipelineResult, error) {
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
		if err := apply.CheckPublish(ctx, env.Repo.Root, &apply.Plan{Bookmark: apply.BookmarkOf(runnable[0]), NoPush: req.Apply.NoPush, NoPR: req.Apply.NoPR}); err != nil {
			return nil, err
		}
	}
	project, err := apply.RepoRel(env, env.Root.Dir)
	if err != nil {
		return nil, err
	}
	run := &PipelineRun{RunID: record.NewID(), Request: req.Apply, MaxParallel: req.MaxParallel,
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
func proposalRevs(ctx context.Context, env *apply.Env, members []string) (map[string]string, error) {
	at, err := env.Repo.One(ctx, "@")
	if err != nil {
		return nil, fmt.Errorf("read @ of %s: %w", env.Repo.Root, err)
	}
	out := map[string]string{}
	for _, m := range members {
		dir, err := apply.RepoRel(env, env.Root.ChangeDir(m))
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
func ResumePipeline(ctx context.Context, env *apply.Env, run *PipelineRun, set PipelineSettings) (*PipelineResult, error) {
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
func resumePipeline(ctx context.Context, env *apply.Env, run *PipelineRun, set PipelineSettings) (*PipelineResult, error) {
	if err := apply.CheckTimeout(set.Timeout); err != nil {
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
func RunPipeline(ctx context.Context, env *apply.Env, run *PipelineRun) (*PipelineResult, error) {
	return runPipeline(ctx, env, run, "")
}

// runPipeline is RunPipeline; checked, when set, is the commit whose
// files the filter prepared the members on (PipelinePlan.Checked).
func runPipeline(ctx context.Context, env *apply.Env, run *PipelineRun, checked string) (*PipelineResult, error) {
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
