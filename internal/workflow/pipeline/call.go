package pipeline

import (
	"context"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/apply"
)

// Mode is what a `jj openspec apply` call asks for.
type Mode int

const (
	ModeRun    Mode = iota // start or resume
	ModeStatus             // --status
	ModeLog                // --log
	ModeAbort              // --abort
)

// Call is one `jj openspec apply`, parsed: the command reads the flags
// and the configuration into it and renders the Outcome; every decision
// (which record a status shows, a pipeline or one change, a resume, the
// one-member fallback, what a resume takes) is Apply's.
type Call struct {
	Mode      Mode
	Names     []string // the CHANGE arguments
	Selectors []Selector
	After     []Dep
	// MaxParallel is --max-parallel for a new pipeline; MaxParallelSet
	// says it was given (a resumed pipeline takes it only then).
	MaxParallel    int
	MaxParallelSet bool
	// Request is a new apply's settings: the configuration with the
	// flags over it.
	Request apply.Request
	// Given are the flags given explicitly: what a resume takes (a
	// resume keeps the run's recorded settings for the rest).
	Given       apply.ResumeFlags
	DryRun      bool
	FromPreview string
	// Yes is --yes: abort without asking; a new pipeline started without
	// asking (members never inherit it).
	Yes bool
	// Confirm is asked before a new pipeline starts (given its plan);
	// nil starts it without asking.
	Confirm func(*PipelinePlan) error
}

// Outcome is what Apply did: one of its fields is set (or none, with
// the error).
type Outcome struct {
	LedgerDir string
	Single    *apply.Result     // a single change applied (or resumed)
	Pipeline  *PipelineResult   // a pipeline run, resumed, or its --status
	Manifest  *apply.Manifest   // --dry-run
	Status    *apply.StatusView // --status of a single apply
	// Log is --log of a single apply (nil: no run in the ledger);
	// MemberLogs of a pipeline.
	Log        *engine.RunLog
	MemberLogs []MemberLog
	Aborted    *apply.Aborted // --abort of a single apply
	// Run is the pipeline record --status, --log or --abort read.
	Run *PipelineRun
}

// MemberLog is one member's run log in `apply --log --json`.
type MemberLog struct {
	Change    string         `json:"change"`
	LedgerDir string         `json:"ledger_dir"`
	Run       *engine.RunLog `json:"run"`
}

// Apply is `jj openspec apply` whole. --status, --log and --abort read
// the newer of the ledger's pipeline record and single apply plan. A run
// names a pipeline (several changes, a selector or a dependency: ApplyMany
// decides between none, one and a pipeline), resumes the unfinished
// pipeline (which refuses anything else), or applies one change: a
// preview (--dry-run), a preview executed (--from-preview), or a start or
// resume.
func Apply(ctx context.Context, env *apply.Env, c Call) (*Outcome, error) {
	out := &Outcome{LedgerDir: env.Dir}
	if c.Mode != ModeRun {
		return out, ledgerMode(ctx, env, c, out)
	}
	var err error
	if len(c.Names) > 1 || len(c.Selectors) > 0 || len(c.After) > 0 {
		if c.Request.Executor != "" {
			return nil, exitcode.New(exitcode.Usage, "apply --executor %s runs one change at a time: apply the changes one by one", c.Request.Executor)
		}
		if c.DryRun || c.FromPreview != "" {
			return nil, exitcode.New(exitcode.Usage, "apply: --dry-run and --from-preview take one change, not a pipeline")
		}
		preq := PipelineRequest{Names: c.Names, Selectors: c.Selectors, After: c.After, Apply: c.Request, MaxParallel: c.MaxParallel}
		out.Single, out.Pipeline, err = ApplyMany(ctx, env, preq, c.Confirm)
		return out, err
	}
	p, err := UnfinishedPipeline(env.Dir)
	if err != nil {
		return nil, err
	}
	if p != nil {
		if len(c.Names) > 0 || c.DryRun || c.FromPreview != "" {
			return nil, UnfinishedPipelineError(p)
		}
		set, err := resumeSettings(c)
		if err != nil {
			return nil, err
		}
		out.Pipeline, err = ResumePipeline(ctx, env, p, set)
		return out, err
	}
	req := c.Request
	if len(c.Names) == 1 {
		req.Change = c.Names[0]
	}
	given := c.Given
	req.Resume = &given
	switch {
	case c.DryRun:
		out.Manifest, err = apply.Preview(ctx, env, req)
	case c.FromPreview != "":
		if len(c.Names) > 0 {
			return nil, exitcode.New(exitcode.Usage, "apply --from-preview %s: the preview names the change; give no CHANGE", c.FromPreview)
		}
		out.Single, err = apply.FromPreview(ctx, env, c.FromPreview)
	default:
		out.Single, err = apply.Apply(ctx, env, req)
	}
	return out, err
}

// ledgerMode is --status, --log or --abort: of the pipeline when its
// record is newer than the single apply's plan, else of the single apply.
func ledgerMode(ctx context.Context, env *apply.Env, c Call, out *Outcome) error {
	p, newer, err := pipelineNewer(env.Dir)
	if err != nil {
		return err
	}
	if newer {
		out.Run = p
		switch c.Mode {
		case ModeStatus:
			out.Pipeline = ReportPipeline(p)
			return nil
		case ModeLog:
			out.MemberLogs, err = memberLogs(p)
			return err
		}
		out.Run, err = AbortPipeline(ctx, env)
		return err
	}
	switch c.Mode {
	case ModeStatus:
		out.Status, err = apply.Status(env.Dir)
	case ModeLog:
		var d *engine.Doc
		var ok bool
		if d, ok, err = engine.Load(env.Dir); err == nil && ok {
			out.Log = engine.BuildLog(d)
		}
	default:
		out.Aborted, err = apply.Abort(ctx, env, c.Yes)
	}
	return err
}

// pipelineNewer reports whether the ledger's pipeline record is newer
// than its single apply's plan (status, log and abort show the newer).
func pipelineNewer(dir string) (*PipelineRun, bool, error) {
	p, ok, err := ReadPipeline(dir)
	if err != nil || !ok {
		return nil, false, err
	}
	pi, err := os.Stat(filepath.Join(dir, PipelineFile))
	if err != nil {
		return nil, false, err
	}
	if ai, err := os.Stat(filepath.Join(dir, apply.PlanFile)); err == nil && ai.ModTime().After(pi.ModTime()) {
		return p, false, nil
	}
	return p, true, nil
}

// memberLogs reads each member's run log.
func memberLogs(p *PipelineRun) ([]MemberLog, error) {
	logs := []MemberLog{}
	for _, m := range p.Members {
		l := MemberLog{Change: m.Change, LedgerDir: m.Dir}
		d, ok, err := engine.Load(m.Dir)
		if err != nil {
			return nil, err
		}
		if ok {
			l.Run = engine.BuildLog(d)
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// resumeSettings are the flags a pipeline's resume takes for its members
// not landed: --worker, --timeout, --verify, --reviewer, --no-push,
// --no-pr and --max-parallel. --no-verify and --distribution are refused
// (exit 2): members under way cannot take them, and one pipeline's
// members do not differ in them.
func resumeSettings(c Call) (PipelineSettings, error) {
	g := c.Given
	if g.NoVerify {
		return PipelineSettings{}, exitcode.New(exitcode.Usage, "apply --no-verify: a resumed pipeline keeps its verify gate; resume without it (--verify CMD replaces the gate's commands), or end the pipeline (`jj openspec apply --abort`) and start it again with --no-verify")
	}
	if g.Distribution != "" {
		return PipelineSettings{}, exitcode.New(exitcode.Usage, "apply --distribution: a resumed pipeline keeps the distribution its members started with; resume without it (`jj openspec apply`), or end the pipeline (`jj openspec apply --abort`) and start it again with --distribution")
	}
	set := PipelineSettings{Worker: g.Worker, Timeout: g.Timeout, Reviewer: g.Reviewer, Verify: g.Verify, NoPush: g.NoPush, NoPR: g.NoPR}
	if c.MaxParallelSet {
		set.MaxParallel = c.MaxParallel
		if set.MaxParallel < 1 {
			return set, exitcode.New(exitcode.Usage, "--max-parallel %d: give at least 1", set.MaxParallel)
		}
	}
	return set, nil
}
