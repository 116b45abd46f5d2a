package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
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

// parsePipelineFlags parses --select and --after.
func parsePipelineFlags(c *cli.Context) ([]pipeline.Selector, []pipeline.Dep, error) {
	var sels []pipeline.Selector
	for _, sel := range c.StringSlice("select") {
		x, err := pipeline.ParseSelector(sel)
		if err != nil {
			return nil, nil, err
		}
		sels = append(sels, x)
	}
	var after []pipeline.Dep
	for _, a := range c.StringSlice("after") {
		d, err := pipeline.ParseAfter(a)
		if err != nil {
			return nil, nil, err
		}
		after = append(after, d)
	}
	return sels, after, nil
}

// confirmPipeline shows a new pipeline's plan and asks a person to start
// it: --yes starts it without asking, no terminal to ask on is exit 5.
func confirmPipeline(c *cli.Context) func(*pipeline.PipelinePlan) error {
	yes := c.Bool("yes")
	return func(plan *pipeline.PipelinePlan) error {
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
	}
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
		if m.PublishCommand != "" {
			fmt.Fprintf(&b, "; to publish: %s", m.PublishCommand)
		}
		b.WriteString("\n")
	}
	for _, s := range r.Stacks {
		if s.Reason != "" {
			fmt.Fprintf(&b, "stack %s: not registered (%s)", strings.Join(s.Members, " <- "), s.Reason)
			if s.PublishCommand != "" {
				fmt.Fprintf(&b, "; once its members are published, to link them: %s", s.PublishCommand)
			}
			b.WriteString("\n")
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

// emitPipelineMode renders --status, --log or --abort of the ledger's
// pipeline.
func emitPipelineMode(c *cli.Context, out *pipeline.Outcome) error {
	p := out.Run
	switch {
	case out.MemberLogs != nil:
		return emitPipelineLog(c, out.MemberLogs)
	case out.Pipeline != nil:
		res := out.Pipeline
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
	return cliapp.Emit(c, p, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "pipeline %s aborted: members not landed have no workspaces left; landed members keep their bookmarks and pull requests\n", p.RunID)
		return err
	})
}

// PipelineLogView is one member's run log in `apply --log --json`.
type PipelineLogView = pipeline.MemberLog

func emitPipelineLog(c *cli.Context, views []PipelineLogView) error {
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
