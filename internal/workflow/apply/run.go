package apply

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
)

// Binary names the run's ledger and its workspaces ("openspec-…").
const Binary = "jj-openspec"

// Request is one `jj openspec apply`.
type Request struct {
	Change string `json:"change"`
	Worker string `json:"worker"`
	// MaxCost stops starting agent jobs once the agents spent it (USD);
	// on a resume it replaces the recorded budget. 0: no limit.
	MaxCost       float64  `json:"max_cost"`
	Verify        []string `json:"verify"`
	NoVerify      bool     `json:"no_verify"`
	Reviewer      string   `json:"reviewer"`
	Distribution  string   `json:"distribution"`
	NoPush        bool     `json:"no_push"`
	NoPR          bool     `json:"no_pr"`
	Yes           bool     `json:"yes"`
	Timeout       string   `json:"timeout"`
	MinGroupTasks int      `json:"min_group_tasks"`
	// RiskMaxFiles: a change whose tasks name more files is routed as
	// risky (0: no limit).
	RiskMaxFiles int `json:"risk_max_files"`
	// RiskMaxModules: a change whose tasks name files in more folders is
	// routed as risky (0: no limit).
	RiskMaxModules int `json:"risk_max_modules"`
	// RiskMinGroupTasks is the size gate of a risky change's fan-out
	// (0: DefaultRiskMinGroupTasks; never below MinGroupTasks).
	RiskMinGroupTasks int    `json:"risk_min_group_tasks"`
	Tracker           string `json:"tracker"`
	WorkspacesDir     string `json:"workspaces_dir"`
	// Executor is where the groups' implementers run: "" (here) or
	// engine.ExecutorActions; ExecutorMaxParallel bounds its runs at
	// once ([executor] max-parallel; 0: every group at once).
	Executor            string `json:"executor,omitempty"`
	ExecutorMaxParallel int    `json:"-"`
	// OnRevision, when set, is the commit @ must stand on, empty, when the
	// apply starts under the lock (relay go put it there under an earlier
	// hold of the lock; anything that moved @ in between is refused).
	OnRevision string `toml:"-" json:"-"`
	// PRBase is the base branch of the pull request ("": the default
	// branch); a stacked pipeline member's is the bookmark below it.
	PRBase string `toml:"-" json:"-"`
	// Expect, when set, is the preview this apply must execute exactly
	// (--from-preview).
	Expect *Manifest `toml:"-" json:"-"`
	// HealthChecked is set when the health check already passed on the
	// same files (a pipeline's filter, when the member's workspace holds
	// what it checked): Prepare does not run it, and so the OpenSpec CLI,
	// again.
	HealthChecked bool `toml:"-" json:"-"`
	// Resume, when set, is what this call gives the unfinished apply it
	// resumes (the flags given explicitly; see ResumeFlags); the run's
	// recorded settings are kept for the rest. Nil (a pipeline member,
	// whose settings the pipeline records and gives; relay go): Worker,
	// when set, runs the remaining workers.
	Resume *ResumeFlags `toml:"-" json:"-"`
}

// ResumeFlags are the settings a resumed apply is given: the flags of
// the call, only those given explicitly (configuration defaults are the
// recorded run's business). An empty field keeps the recorded setting.
type ResumeFlags struct {
	Worker   string
	Timeout  string
	Reviewer string
	// Verify, when set, replaces the verify commands.
	Verify []string
	// NoVerify and Distribution are refused (exit 2): the run keeps its
	// verify gate and was split for its workers when it started.
	NoVerify     bool
	Distribution string
	NoPush       *bool
	NoPR         *bool
}

// Commands are apply's verbs for the engine's halt messages: a run
// resumes by running apply again on its change (there is no separate
// resume, sweep, gate or review verb: abort releases kept workspaces).
func Commands(change string) engine.Commands {
	return engine.Commands{
		Resume: "jj openspec apply " + change,
		Abort:  "jj openspec apply --abort",
		Status: "jj openspec apply --status",
	}
}

// PipelineCommands are a pipeline member's verbs: the pipeline resumes
// (and is aborted) as a whole.
var PipelineCommands = engine.Commands{
	Resume: "jj openspec apply",
	Abort:  "jj openspec apply --abort",
	Status: "jj openspec apply --status",
}

// ImplementMessage describes the change the implementation lands in.
func ImplementMessage(change string) string { return "feat(openspec): implement " + change }

// ArtifactsMessage describes @ when it holds the change's artifacts.
func ArtifactsMessage(change string) string {
	return "docs(openspec): " + change + " change artifacts"
}

// Unfinished returns the apply plan of an unfinished run in dir (neither
// applied nor aborted), or nil.
func Unfinished(dir string) (*Plan, *engine.Doc, error) {
	p, ok, err := ReadPlan(dir)
	if err != nil || !ok {
		return nil, nil, err
	}
	d, ok, err := engine.Load(dir)
	if err != nil || !ok {
		return nil, nil, err
	}
	if d.Header.RunID != p.RunID || d.Header.Binary != Binary {
		return nil, nil, nil
	}
	if engine.Fold(d).Aborted || TailOf(d).Applied || workersFailed(d) {
		return nil, nil, nil
	}
	return p, d, nil
}

// CheckTimeout refuses a worker timeout that is not a positive Go
// duration (exit 2): a timeout given is never silently dropped, which
// would leave the worker without a deadline.
func CheckTimeout(s string) error {
	if s == "" {
		return nil
	}
	if d, err := time.ParseDuration(s); err != nil || d <= 0 {
		return exitcode.New(exitcode.Usage, "--timeout %q: give a positive Go duration such as 30m (the flag, or [worker] timeout in specstack.toml)", s)
	}
	return nil
}

// CheckVerify refuses an apply without a verify command unless
// --no-verify (exit 2): the verify gate cannot pass without one.
func CheckVerify(verify []string, noVerify bool) error {
	if len(verify) == 0 && !noVerify {
		return exitcode.New(exitcode.Usage, "no verify command: the verify gate cannot pass without one; give --verify CMD (or [openspec] verify), or --no-verify to archive unverified")
	}
	return nil
}

// Apply runs the implementing shape for req: a new run, or the
// unfinished one of the same change (resume).
func Apply(ctx context.Context, env *Env, req Request) (*Result, error) {
	if err := CheckTimeout(req.Timeout); err != nil {
		return nil, err
	}
	p, _, err := Unfinished(env.Dir)
	if err != nil {
		return nil, err
	}
	if p != nil {
		if req.Change != "" && req.Change != p.Change {
			// A live apply is no decision to make: it is locked.
			if err := ledger.Busy(env.Dir); err != nil {
				return nil, err
			}
			return nil, exitcode.New(exitcode.NeedsChoice, "an unfinished apply of change %q (run %s) is in the ledger: `jj openspec apply %s` resumes it, `jj openspec apply --abort` undoes it", p.Change, p.RunID, p.Change)
		}
		engine.PausePoint("apply-resume-read")
		r, err := openRun(ctx, env)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		// p was read before the lock: the run must still be unfinished.
		again, _, err := Unfinished(env.Dir)
		if err != nil {
			return nil, err
		}
		if again == nil || again.RunID != p.RunID {
			return nil, exitcode.New(exitcode.NeedsChoice, "apply: run %s of change %s was aborted or finished while this apply waited for the lock; nothing was run (`jj openspec apply --status` shows it)", p.RunID, p.Change)
		}
		p = again // the plan as it is under the lock
		var took []string
		if req.Resume != nil {
			if took, err = takeResumeFlags(env, r, p, *req.Resume); err != nil {
				return nil, err
			}
		} else {
			r.Worker = req.Worker
		}
		r.Commands = env.commands(p.Change)
		if t := TailOf(r.Doc); t.PR == nil && !t.Applied {
			if err := CheckPublish(ctx, env.Repo.Root, p); err != nil {
				return nil, err
			}
		}
		r.MaxCost = req.MaxCost
		// A decision made now (archive with tasks open) is this call's.
		p.Yes = p.Yes || req.Yes
		fmt.Fprintf(env.Out, "apply: resuming run %s of change %s (%s)\n", p.RunID, p.Change, p.Distribution)
		if len(took) > 0 {
			fmt.Fprintf(env.Out, "apply: run %s of change %s goes on with %s (recorded)\n", p.RunID, p.Change, strings.Join(took, ", "))
		}
		if !r.State().Complete {
			if err := r.Resume(); err != nil {
				return nil, err
			}
		}
		return run(ctx, env, r, p)
	}
	pl, dec, err := Prepare(ctx, env, req)
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Worker: req.Worker, Timeout: req.Timeout, SkipReview: true, WorkspacesDir: req.WorkspacesDir, MaxCost: req.MaxCost, Executor: req.Executor}
	if req.Executor != "" {
		opts.MaxParallel = req.ExecutorMaxParallel
	}
	if req.Executor == "" {
		if err := engine.NeedWorker(req.Worker, env.Repo.Root); err != nil {
			return nil, err
		}
	}
	if err := engine.NeedReviewer(req.Reviewer, env.Repo.Root); err != nil {
		return nil, err
	}
	// A remote executor reaches GitHub before anything is made.
	ex, err := env.connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The lock first; then, under it, nothing unfinished and the base.
	res, err := reserve(env, true)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	if again, _, err := Unfinished(env.Dir); err != nil || again != nil {
		if err != nil {
			return nil, err
		}
		return nil, exitcode.New(exitcode.NeedsChoice, "an unfinished apply of change %q started meanwhile: resume or abort it", again.Change)
	}
	if req.Expect != nil {
		if err := checkExpected(ctx, env, req.Expect, pl); err != nil {
			return nil, err
		}
	}
	if err := CheckBookmark(ctx, env.Repo, pl.Bookmark, ""); err != nil {
		return nil, err
	}
	if err := CheckOrigin(ctx, env.Repo, pl); err != nil {
		return nil, err
	}
	if err := CheckPublish(ctx, env.Repo.Root, pl); err != nil {
		return nil, err
	}
	if req.OnRevision != "" {
		if err := checkOnRevision(ctx, env, pl.Change, req.OnRevision); err != nil {
			return nil, err
		}
	}
	if err := settleBase(ctx, env, pl); err != nil {
		return nil, err
	}
	engine.CrashPoint("apply-base-settled")
	r, err := res.Start(ctx, env.Repo, engine.StartRequest{
		Binary: Binary, Plan: pl.Change, Tasks: dec.Tasks, Waves: dec.Waves, Briefs: dec.Briefs,
		Options: opts, Fresh: true, Warnings: pl.Reasons,
	}, env.Out)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.Executor = ex
	r.Commands = env.commands(pl.Change)
	pl.RunID = r.Doc.Header.RunID
	if err := WritePlan(env.Dir, pl); err != nil {
		return nil, err
	}
	return run(ctx, env, r, pl)
}

// Prepare resolves and checks everything a new apply needs before it
// provisions anything (change, readiness, health check, risk, the
// distribution): what --dry-run shows.
// ctx bounds the health check (it may run the OpenSpec CLI).
func Prepare(ctx context.Context, env *Env, req Request) (*Plan, Decision, error) {
	if err := CheckTimeout(req.Timeout); err != nil {
		return nil, Decision{}, err
	}
	name, err := ResolveChange(env.Root, req.Change)
	if err != nil {
		return nil, Decision{}, err
	}
	if err := CheckNames(env.Root, []string{name}); err != nil {
		return nil, Decision{}, err
	}
	if _, err := CheckReady(env.Root, name); err != nil {
		return nil, Decision{}, err
	}
	if !req.HealthChecked {
		if err := CheckHealth(ctx, env.Root, name, env.Markers); err != nil {
			return nil, Decision{}, err
		}
	}
	// The distribution with the standard size gate first: the files its
	// groups name are part of the routing.
	dec, err := Decide(env.Root, name, req.Distribution, req.MinGroupTasks)
	if err != nil && exitcode.Of(err) != exitcode.NeedsChoice {
		return nil, dec, err
	}
	route, rerr := RouteChange(env.Root, name, dec, RouteOptions{MinGroupTasks: req.MinGroupTasks, RiskMinGroupTasks: req.RiskMinGroupTasks, MaxFiles: req.RiskMaxFiles, MaxModules: req.RiskMaxModules})
	if rerr != nil {
		return nil, Decision{}, rerr
	}
	if err != nil {
		return nil, dec, err
	}
	if route.Level == LevelRisk {
		flags := strings.Join(route.Flags, ", ")
		if req.NoVerify {
			return nil, Decision{}, exitcode.New(exitcode.NeedsChoice, "change %q carries risk flags %s: --no-verify is refused; give verify commands ([openspec] verify or --verify)", name, flags)
		}
		if req.Reviewer == "" {
			return nil, Decision{}, exitcode.New(exitcode.NeedsChoice, "change %q carries risk flags %s: a reviewer is required (--reviewer CMD or [worker] reviewer)", name, flags)
		}
		// Never fan out below the risk level's size gate.
		if route.MinGroupTasks != max(req.MinGroupTasks, 2) {
			rd, err := Decide(env.Root, name, req.Distribution, route.MinGroupTasks)
			if err != nil {
				return nil, rd, exitcode.New(exitcode.NeedsChoice, "change %q is routed at level risk (%s): %v", name, strings.Join(route.Reasons, "; "), err)
			}
			if dec.Distribution == FanOut && rd.Distribution != FanOut {
				rd.Reasons = append(rd.Reasons, fmt.Sprintf("risk level: no fan-out below %s per group", plural.Count(route.MinGroupTasks, "unchecked task", "unchecked tasks")))
			}
			dec = rd
		}
	}
	if err := CheckVerify(req.Verify, req.NoVerify); err != nil {
		return nil, Decision{}, err
	}
	reasons := slices.Clone(dec.Reasons)
	if route.Level == LevelRisk {
		reasons = append(reasons, fmt.Sprintf("risk flags %s: verify and a reviewer required", strings.Join(route.Flags, ", ")))
	}
	return &Plan{
		Level: route.Level, LevelReasons: route.Reasons,
		Change: name, Bookmark: BookmarkOf(name), Distribution: dec.Distribution, Reasons: reasons,
		Groups: dec.Groups, TaskGroups: dec.TaskGroups, Verify: req.Verify, Reviewer: req.Reviewer,
		NoPush: req.NoPush, NoPR: req.NoPR, Yes: req.Yes, Tracker: req.Tracker, PRBase: req.PRBase,
	}, dec, nil
}

// areaSize counts the distinct paths and globs the change's task groups
// name.
func areaSize(d Decision) int {
	seen := map[string]bool{}
	for _, g := range d.Verdict.Groups {
		for _, a := range g.Area {
			seen[a] = true
		}
	}
	return len(seen)
}

// CheckBookmark refuses a bookmark that exists at another commit than at
// (any commit when at is ""): a person decides, it is never moved
// silently.
func CheckBookmark(ctx context.Context, repo *jjx.Repo, name, at string) error {
	bms, err := repo.Bookmarks(ctx, name)
	if err != nil {
		return fmt.Errorf("read bookmark %s: %w", name, err)
	}
	for _, b := range bms {
		if b.Name != name || b.Remote != "" || !b.Present {
			continue
		}
		if at != "" && b.CommitID == at {
			return nil
		}
		return exitcode.New(exitcode.NeedsChoice, "bookmark %s already exists at %s: it is never moved silently; delete it (`jj bookmark delete %s`) or apply from where it is", name, record.ShortID(b.CommitID), name)
	}
	return nil
}

// CheckOrigin refuses, when p will be pushed, a bookmark origin already
// has (asked directly, not through jj's view of it, which an abort's
// operation restore rewinds): the push at the end would be refused after
// the workers, the gate and the archive ran. A repository without an
// origin remote has nothing to check.
func CheckOrigin(ctx context.Context, repo *jjx.Repo, p *Plan) error {
	if p.NoPush {
		return nil
	}
	store, err := repo.GitRoot(ctx)
	if err != nil {
		return fmt.Errorf("find the git store to look for %s on %s: %w", p.Bookmark, gitx.Origin, err)
	}
	g := &gitx.Repo{Dir: store}
	url, err := g.RemoteURL(ctx, gitx.Origin)
	if err != nil {
		return nil // no origin: the push step names it
	}
	sha, ok, err := g.RemoteHead(ctx, gitx.Origin, p.Bookmark)
	if err != nil {
		return fmt.Errorf("look for bookmark %s on %s (%s) before apply: %w; or give --no-push", p.Bookmark, gitx.Origin, url, err)
	}
	if ok {
		return exitcode.New(exitcode.NeedsChoice, "bookmark %s already exists on %s (%s) at %s: it is never moved silently; delete it there (`git push %s --delete %s`) if it should go, or give --no-push", p.Bookmark, gitx.Origin, url, record.ShortID(sha), url, p.Bookmark)
	}
	return nil
}

// settleBase makes @ an empty change on the revision holding the
// change's artifacts: when @ holds edits (the artifacts, uncommitted),
// it is described (when it has no description) and a new change made on
// it; an empty @ is described with the implementation message.
func settleBase(ctx context.Context, env *Env, p *Plan) error {
	op, err := env.Repo.OpHead(ctx)
	if err != nil {
		return fmt.Errorf("read the operation before apply: %w", err)
	}
	p.PreOp = op
	at, err := ReadAt(ctx, env)
	if err != nil {
		return err
	}
	if !at.Empty {
		if strings.TrimSpace(at.Description) == "" {
			if err := onlyArtifacts(env, p.Change, at.Files); err != nil {
				return err
			}
			if err := env.Repo.Describe(ctx, "@", ArtifactsMessage(p.Change)); err != nil {
				return fmt.Errorf("describe @ as the change's artifacts: %w", err)
			}
			p.Described = true
			fmt.Fprintf(env.Out, "apply: described @ %q (it holds the change's artifacts)\n", ArtifactsMessage(p.Change))
		}
		p.Base = at.ChangeID
		if _, err := env.Repo.New(ctx, ImplementMessage(p.Change), true); err != nil {
			return fmt.Errorf("start the implementation change on %s: %w", record.ShortID(at.ChangeID), err)
		}
		return nil
	}
	if strings.TrimSpace(at.Description) == "" {
		if err := env.Repo.Describe(ctx, "@", ImplementMessage(p.Change)); err != nil {
			return fmt.Errorf("describe @: %w", err)
		}
	}
	if len(at.ParentChangeIDs) > 0 {
		p.Base = at.ParentChangeIDs[0]
	}
	return nil
}

// ReadAt reads @ of the repository (jj snapshots the working copy first).
func ReadAt(ctx context.Context, env *Env) (jjx.CommitDetail, error) {
	ats, err := env.Repo.LogDetail(ctx, "@")
	if err == nil && len(ats) != 1 {
		err = fmt.Errorf("@ names %d revisions, want 1", len(ats))
	}
	if err != nil {
		return jjx.CommitDetail{}, exitcode.Wrap(exitcode.Missing, fmt.Errorf("read @ of %s: %w", env.Repo.Root, err))
	}
	return ats[0], nil
}

// checkOnRevision refuses to start unless @ is an empty change whose only
// parent is rev.
func checkOnRevision(ctx context.Context, env *Env, change, rev string) error {
	at, err := ReadAt(ctx, env)
	if err != nil {
		return err
	}
	if at.Empty && len(at.Parents) == 1 && at.Parents[0] == rev {
		return nil
	}
	return exitcode.New(exitcode.NeedsChoice, "@ (%s) is no longer an empty change on the proposal revision %s: it moved after relay go put it there; nothing was started: run `jj openspec relay go %s` again", record.ShortID(at.ChangeID), record.ShortID(rev), change)
}

// onlyArtifacts refuses an undescribed @ holding edits outside the
// change's folder: apply would describe them as the change's artifacts.
func onlyArtifacts(env *Env, change string, files []jjx.FileChange) error {
	if other := notArtifacts(env, change, files); len(other) > 0 {
		return exitcode.New(exitcode.NeedsChoice, "@ has edits that are not change %s's artifacts (%s): describe or commit them first (`jj commit -m …`), then apply", change, strings.Join(other, ", "))
	}
	return nil
}

// notArtifacts lists the files of @ outside the change's folder.
func notArtifacts(env *Env, change string, files []jjx.FileChange) []string {
	dir, err := RepoRel(env, env.Root.ChangeDir(change))
	if err != nil {
		return nil // the project is not seen under the root (a link): cannot tell
	}
	dir += "/"
	var out []string
	for _, f := range files {
		if !strings.HasPrefix(f.Path, dir) {
			out = append(out, f.Path)
		}
	}
	return out
}

// run drives the engine's remaining phases, then the tail.
func run(ctx context.Context, env *Env, r *engine.Runner, p *Plan) (*Result, error) {
	if p.Level != "" {
		fmt.Fprintf(env.Out, "apply: level %s (%s)\n", p.Level, strings.Join(p.LevelReasons, "; "))
	}
	fmt.Fprintf(env.Out, "apply: change %s, %s distribution (%s), bookmark %s\n", p.Change, p.Distribution, strings.Join(p.Reasons, "; "), p.Bookmark)
	r.Screen = screen(env, p, r)
	if !r.State().Complete {
		if r.Executor == nil {
			o := r.Doc.Header.Options
			o.Worker = cmp.Or(r.Worker, o.Worker)
			ex, err := env.connect(ctx, o)
			if err != nil {
				return &Result{Plan: p, Phase: PhaseWorkers, Coverage: r.Report()}, err
			}
			r.Executor = ex
		}
		drive := env.Drive
		if drive == nil {
			drive = func(ctx context.Context, r *engine.Runner) error { return r.Drive(ctx) }
		}
		if err := drive(ctx, r); err != nil {
			return &Result{Plan: p, Phase: PhaseWorkers, Coverage: r.Report()}, err
		}
	}
	return tail(ctx, env, r, p)
}

// workersFailed reports a run the engine completed with a group not
// merged: there is nothing for the tail, a new apply starts over (the
// failed workspaces are kept for inspection).
func workersFailed(d *engine.Doc) bool {
	return engine.Fold(d).Complete && len(engine.BuildCoverage(d, "").NotMerged()) > 0
}
