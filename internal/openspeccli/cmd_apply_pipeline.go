package openspeccli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/pipeline"
)

// pipelineFlags are apply's multi-change flags.
func pipelineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "select", Usage: "pipeline members by `SELECTOR`: a glob over change names and/or status=no-tasks|in-progress|complete, comma-joined (both must match); repeatable (either matches)"},
		&cli.StringSliceFlag{Name: "after", Usage: "`C:D`: change C lands after change D, stacked on it (repeatable)"},
		&cli.IntFlag{Name: "max-parallel", Value: 2, Usage: "pipeline: at most `N` members (or stacks) at once"},
	}
}

// pipelineAsked reports whether the call names a pipeline: several
// changes, a selector or a dependency.
func pipelineAsked(c *cli.Context, args []string) bool {
	return len(args) > 1 || len(c.StringSlice("select")) > 0 || len(c.StringSlice("after")) > 0
}

// runPipeline parses a multi-change apply, hands it to pipeline.ApplyMany
// (which decides between none, one change and a pipeline) with the
// confirmation a person gives, and renders what ran.
func runPipeline(c *cli.Context, s *applySession, args []string, req apply.Request) error {
	if c.Bool("dry-run") || c.String("from-preview") != "" {
		return exitcode.New(exitcode.Usage, "apply: --dry-run and --from-preview take one change, not a pipeline")
	}
	preq := pipeline.PipelineRequest{Names: args, Apply: req, MaxParallel: c.Int("max-parallel")}
	for _, sel := range c.StringSlice("select") {
		x, err := pipeline.ParseSelector(sel)
		if err != nil {
			return err
		}
		preq.Selectors = append(preq.Selectors, x)
	}
	for _, a := range c.StringSlice("after") {
		d, err := pipeline.ParseAfter(a)
		if err != nil {
			return err
		}
		preq.After = append(preq.After, d)
	}
	yes := c.Bool("yes")
	single, res, err := pipeline.ApplyMany(c.Context, s.env, preq, func(plan *pipeline.PipelinePlan) error {
		writePipelinePlan(cliapp.Stderr(c), plan)
		if yes {
			return nil
		}
		if !cliapp.CanPrompt(c) {
			return exitcode.New(exitcode.NeedsChoice, "apply: a pipeline of %d changes (%d workspaces): re-run with --yes to start it", len(plan.Supply.Members), plan.Width())
		}
		ok, err := cliapp.Confirm(c, "start the pipeline?")
		if err != nil {
			return err
		}
		if !ok {
			return exitcode.New(exitcode.NeedsChoice, "apply: pipeline not started (declined)")
		}
		return nil
	})
	if single != nil {
		return emitApply(c, single, err)
	}
	return emitPipeline(c, res, err)
}

// resumePipeline continues the unfinished pipeline p, read before the
// lock: read again under it, so a pipeline aborted (or finished) in
// between is not run again, nor its record overwritten.
func resumePipeline(c *cli.Context, s *applySession, p *pipeline.PipelineRun) error {
	set, err := resumeSettings(c, s)
	if err != nil {
		return err
	}
	res, err := pipeline.ResumePipeline(c.Context, s.env, p, set)
	return emitPipeline(c, res, err)
}

// resumeSettings reads the flags a pipeline's resume takes for its
// members not landed: --worker, --timeout, --verify (with [openspec]
// verify, as a start takes them), --reviewer, --no-push and
// --max-parallel. --no-verify and --distribution are refused (exit 2):
// members under way cannot take them, and one pipeline's members do not
// differ in them.
func resumeSettings(c *cli.Context, s *applySession) (pipeline.PipelineSettings, error) {
	if c.IsSet("no-verify") {
		return pipeline.PipelineSettings{}, exitcode.New(exitcode.Usage, "apply --no-verify: a resumed pipeline keeps its verify gate; resume without it (--verify CMD replaces the gate's commands), or end the pipeline (`jj openspec apply --abort`) and start it again with --no-verify")
	}
	if c.IsSet("distribution") {
		return pipeline.PipelineSettings{}, exitcode.New(exitcode.Usage, "apply --distribution: a resumed pipeline keeps the distribution its members started with; resume without it (`jj openspec apply`), or end the pipeline (`jj openspec apply --abort`) and start it again with --distribution")
	}
	set := pipeline.PipelineSettings{Worker: c.String("worker"), Timeout: c.String("timeout"), Reviewer: c.String("reviewer")}
	if c.IsSet("verify") {
		set.Verify = configuredRequest(c, s).Verify
	}
	if c.IsSet("no-push") {
		no := c.Bool("no-push")
		set.NoPush = &no
	}
	if c.IsSet("no-pr") {
		no := c.Bool("no-pr")
		set.NoPR = &no
	}
	if c.IsSet("max-parallel") {
		set.MaxParallel = c.Int("max-parallel")
		if set.MaxParallel < 1 {
			return set, exitcode.New(exitcode.Usage, "--max-parallel %d: give at least 1", set.MaxParallel)
		}
	}
	return set, nil
}

func emitPipeline(c *cli.Context, res *pipeline.PipelineResult, err error) error {
	if res == nil {
		return err
	}
	if eerr := cliapp.Emit(c, res, func(w io.Writer) error { return writePipeline(w, res) }); eerr != nil && err == nil {
		err = eerr
	}
	return err
}

func writePipelinePlan(w io.Writer, p *pipeline.PipelinePlan) {
	fmt.Fprintf(w, "apply: pipeline of %d changes, %d workspaces:\n", len(p.Supply.Members), p.Width())
	for _, m := range p.Layout.Independent {
		fmt.Fprintf(w, "  %s (independent; %s)\n", m, plural.Count(p.Supply.Width[m], "worker workspace", "worker workspaces"))
	}
	for _, st := range p.Layout.Stacks {
		for k, m := range st {
			fmt.Fprintf(w, "  %s (stacked %d of %d; %s)\n", m, k+1, len(st), plural.Count(p.Supply.Width[m], "worker workspace", "worker workspaces"))
		}
	}
	for _, b := range p.Layout.Blocked {
		fmt.Fprintf(w, "  %s (not run: %s)\n", b.Change, b.Reason)
	}
}

// writePipeline prints the summary: one line per member, then the
// stacks, exclusions and cycles.
func writePipeline(w io.Writer, r *pipeline.PipelineResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pipeline %s\n", r.RunID)
	for _, m := range r.Members {
		state := m.Outcome
		if m.Outcome == pipeline.OutcomeStacked {
			state = fmt.Sprintf("stacked %d of %d", m.Position, m.Of)
		}
		if m.Reason != "" {
			state += " (" + m.Reason + ")"
		}
		pr := "no PR"
		if m.PR != nil {
			pr = fmt.Sprintf("PR #%d %s", m.PR.Number, m.PR.URL)
		}
		fmt.Fprintf(&b, "%s: %s; bookmark %s; %s; verify %s", m.Change, state, m.Bookmark, pr, m.Verify)
		if len(m.Unticked) > 0 {
			fmt.Fprintf(&b, "; unticked: %s", strings.Join(m.Unticked, ", "))
		}
		if m.Workspace != "" {
			fmt.Fprintf(&b, "; workspace kept: %s", m.Workspace)
		}
		b.WriteString("\n")
	}
	for _, s := range r.Stacks {
		if s.Reason != "" {
			fmt.Fprintf(&b, "stack %s: not registered (%s)\n", strings.Join(s.Members, " <- "), s.Reason)
			continue
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "stack %s: not registered: %s\n", strings.Join(s.Members, " <- "), s.Error)
			continue
		}
		fmt.Fprintf(&b, "stack %s: %s (%s)\n", strings.Join(s.Members, " <- "), s.Action, s.Mode)
	}
	for _, x := range r.Excluded {
		fmt.Fprintf(&b, "excluded %s: %s\n", x.Change, x.Reason)
	}
	for _, x := range r.Blocked {
		fmt.Fprintf(&b, "not run %s: %s\n", x.Change, x.Reason)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pipelineNewer reports whether the ledger's pipeline record is newer
// than its single apply's plan (status, log and abort show the newer).
func pipelineNewer(dir string) (*pipeline.PipelineRun, bool, error) {
	p, ok, err := pipeline.ReadPipeline(dir)
	if err != nil || !ok {
		return nil, false, err
	}
	pi, err := os.Stat(filepath.Join(dir, pipeline.PipelineFile))
	if err != nil {
		return nil, false, err
	}
	if ai, err := os.Stat(filepath.Join(dir, apply.PlanFile)); err == nil && ai.ModTime().After(pi.ModTime()) {
		return p, false, nil
	}
	return p, true, nil
}

func emitPipelineStatus(c *cli.Context, p *pipeline.PipelineRun) error {
	res := pipeline.ReportPipeline(p)
	return cliapp.Emit(c, res, func(w io.Writer) error {
		state := "unfinished"
		if p.Aborted {
			state = "aborted"
		} else if res.Landed() {
			state = "landed"
		}
		fmt.Fprintf(w, "pipeline %s: %s\n", p.RunID, state)
		return writePipeline(w, res)
	})
}

// pipelineMode is --status, --log or --abort of the ledger's pipeline.
func pipelineMode(c *cli.Context, s *applySession, p *pipeline.PipelineRun) error {
	switch {
	case c.Bool("status"):
		return emitPipelineStatus(c, p)
	case c.Bool("log"):
		return emitPipelineLog(c, p)
	}
	p, err := pipeline.AbortPipeline(c.Context, s.env)
	if err != nil {
		return err
	}
	return cliapp.Emit(c, p, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "pipeline %s aborted: members not landed have no workspaces left; landed members keep their bookmarks and pull requests\n", p.RunID)
		return err
	})
}

// PipelineLogView is one member's run log in `apply --log --json`.
type PipelineLogView struct {
	Change    string         `json:"change"`
	LedgerDir string         `json:"ledger_dir"`
	Run       *engine.RunLog `json:"run"`
}

func emitPipelineLog(c *cli.Context, p *pipeline.PipelineRun) error {
	views := []PipelineLogView{}
	for _, m := range p.Members {
		v := PipelineLogView{Change: m.Change, LedgerDir: m.Dir}
		d, ok, err := engine.Load(m.Dir)
		if err != nil {
			return err
		}
		if ok {
			v.Run = engine.BuildLog(d)
		}
		views = append(views, v)
	}
	return cliapp.Emit(c, views, func(w io.Writer) error {
		for _, v := range views {
			fmt.Fprintf(w, "== %s\n", v.Change)
			if v.Run == nil {
				fmt.Fprintln(w, "not started")
				continue
			}
			if err := v.Run.Text(w); err != nil {
				return err
			}
		}
		return nil
	})
}
