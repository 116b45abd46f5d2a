package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/stack/ghapi"
)

// IntegrationBranch is the branch of the whole-stack review's fixes.
func IntegrationBranch(spec int) string { return fmt.Sprintf("spec/%d-integration", spec) }

// atReviewUnion is every ticket's at-review commands, once each.
func atReviewUnion(h RunHeader) []string {
	var res []string
	seen := map[string]bool{}
	for _, t := range h.Tickets {
		for _, c := range t.AtReview {
			if k := NormalizeCommand(c); !seen[k] {
				seen[k] = true
				res = append(res, c)
			}
		}
	}
	return res
}

// stackReview reviews the whole stack (base...tip) once every ticket is
// published, when a reviewer is configured: the at-review union runs once
// on the tip (judged against the baseline, whose at-review part drive
// measured in the background); blocking findings go to the worker as
// a fixer whose recipe is every ticket's per-change commands plus the
// at-review union, and its fixes land as one integration pull request on
// top of the stack.
func (d *driver) stackReview(ctx context.Context) error {
	h := d.doc.Header
	s := d.snapshot()
	if h.Reviewer == "" || s.Review != "" || len(s.Published) == 0 {
		return nil
	}
	if s.Integration != nil {
		return d.publishIntegration(ctx, true)
	}
	union := atReviewUnion(h)
	tip, tipBranch := tipOf(s, h)
	branch := IntegrationBranch(h.Spec)
	ws := engine.Workspace{Name: branch, Path: d.backend.Path(branch), Base: []string{tip}, Message: fmt.Sprintf("spec #%d: whole-stack review fixes", h.Spec)}
	if err := d.backend.Release(ctx, ws); err != nil {
		return err
	}
	ws, err := d.backend.Provision(ctx, ws)
	if err != nil {
		return err
	}
	dir := filepath.Join(d.artifacts(), "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	red, err := d.runChecks(ctx, 0, ws.Path, tip, "review", union, dir)
	if err != nil {
		return err
	}
	diff, err := d.backend.DiffRange(ctx, h.BaseSHA, tip)
	if err != nil {
		return err
	}
	paths := map[string]string{"diff": filepath.Join(dir, "stack.diff"), "brief": filepath.Join(dir, "review.md"),
		"findings": filepath.Join(dir, "findings.json"), "report": filepath.Join(dir, "review-report.md")}
	os.Remove(paths["findings"])
	if err := os.WriteFile(paths["diff"], diff, 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Whole-stack review of spec #%d: %s\n\nReview %s...%s (%s...%s; diff: %s): what no per-ticket review can see, the interaction between tickets. Write blocking findings to $SPECSTACK_FINDINGS as for the gate.\n\n## Tickets\n\n",
		h.Spec, h.Title, h.Base, tipBranch, short(h.BaseSHA), short(tip), paths["diff"])
	for _, n := range s.Published {
		t := s.Tickets[n]
		fmt.Fprintf(&b, "- #%d %s (pull request #%d)\n", n, t.Title, t.PR)
	}
	b.WriteString("\n## Run at review, on the tip\n\n")
	for _, r := range d.snapshot().ReviewReceipts {
		fmt.Fprintf(&b, "- `%s` exited %d\n", r.Command, r.ExitCode)
	}
	if err := os.WriteFile(paths["brief"], []byte(b.String()), 0o644); err != nil {
		return err
	}
	recipe := append(d.perChangeUnion(), union...)
	g := engine.Gate{MaxRounds: 1, FixLast: true,
		Review: func(ctx context.Context, _ int, _ []engine.Rejection, _ []engine.Finding) ([]engine.Finding, error) {
			return d.reviewStack(ctx, ws, paths)
		},
		Red: func(int) []engine.Finding {
			var fs []engine.Finding
			for i, c := range red {
				fs = append(fs, engine.Finding{ID: fmt.Sprintf("sv%d", i+1), Kind: engine.KindRedValidation, Message: c + " on the tip (green at the base)"})
			}
			return fs
		},
		Fix: func(ctx context.Context, _ int, blocking []engine.Finding) (map[string]engine.FixVerdict, error) {
			return d.fixStack(ctx, ws, dir, recipe, blocking)
		},
		Record: func(s engine.GateStep) error { return d.recordGate(0, s) },
	}
	gr, err := g.Run(ctx)
	if err != nil {
		return err
	}
	if gr.Passed {
		if err := d.record(run(engine.StackReviewed{Status: "passed"})); err != nil {
			return err
		}
		return d.backend.Release(ctx, ws)
	}
	blocking := gr.Blocking
	p, err := d.backend.Collect(ctx, ws)
	if err != nil {
		return err
	}
	if p.Empty() {
		d.logf("whole-stack review: the fixer changed nothing; no integration pull request")
		if err := d.record(run(engine.StackReviewed{Status: "blocked", Findings: len(blocking)})); err != nil {
			return err
		}
		return d.backend.Release(ctx, ws)
	}
	if red, err = d.runChecks(ctx, 0, ws.Path, p.Commit, "integration", recipe, dir); err != nil {
		return err
	}
	if len(red) > 0 {
		return d.halt(0, engine.StateUnmet, fmt.Sprintf("the whole-stack fixes at %s are red and were green at the base: %s", short(p.Commit), strings.Join(red, ", ")))
	}
	if err := d.record(run(engine.Integrating{Branch: branch, SHA: p.Commit, BaseBranch: tipBranch})); err != nil {
		return err
	}
	return d.publishIntegration(ctx, false)
}

// reviewStack runs the whole-stack reviewer in ws and reads its findings.
func (d *driver) reviewStack(ctx context.Context, ws engine.Workspace, paths map[string]string) ([]engine.Finding, error) {
	h := d.doc.Header
	j := engine.BuildJob(engine.JobRequest{Role: engine.RoleReviewer, Task: "stack", Dir: ws.Path, Command: h.Reviewer,
		Brief: paths["brief"], Report: paths["report"], Findings: paths["findings"], Diff: paths["diff"],
		Log: filepath.Join(filepath.Dir(paths["brief"]), "reviewer.log"), Timeout: d.timeout, Artifacts: d.artifacts(),
		Answer: paths["findings"], Schema: gateFindingsSchema})
	res := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := d.worked(0, engine.RoleReviewer, 0, res); err != nil {
		return nil, err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		return nil, d.halt(0, engine.StateFailed, fmt.Sprintf("the whole-stack reviewer exited %d%s (log %s): the review never ran to its end", res.ExitCode, agentWhy(res), j.Log))
	}
	found, err := engine.ReadGateFindings(paths["findings"], "s")
	var notJSON *engine.NotJSONError
	if errors.As(err, &notJSON) {
		return nil, d.halt(0, engine.StateFailed, fmt.Sprintf("the whole-stack reviewer's findings %s are not a JSON array of findings: %v", paths["findings"], notJSON.Err))
	}
	if err != nil {
		return nil, d.halt(0, engine.StateFailed, fmt.Sprintf("the whole-stack reviewer's findings cannot be read (a review that cannot be read is never counted as clean): %v", err))
	}
	return found, nil
}

// fixStack hands the whole stack's blocking findings to the worker as a
// fixer in ws and reads its verdicts, by finding id.
func (d *driver) fixStack(ctx context.Context, ws engine.Workspace, dir string, recipe []string, blocking []engine.Finding) (map[string]engine.FixVerdict, error) {
	h := d.doc.Header
	findings, verdictsPath, brief := filepath.Join(dir, "blocking.json"), filepath.Join(dir, "verdicts.json"), filepath.Join(dir, "fix.md")
	os.Remove(verdictsPath)
	if err := writeJSON(findings, blocking); err != nil {
		return nil, err
	}
	var fb strings.Builder
	fmt.Fprintf(&fb, "# Fix the whole stack of spec #%d\n\nThe findings in $SPECSTACK_FINDINGS come from the review of the whole stack. Fix them on this branch (it becomes one integration pull request on top of the stack, touching nothing below) and answer each in $SPECSTACK_VERDICTS as for the gate. Your recipe, every ticket's per-change commands plus the at-review ones:\n\n", h.Spec)
	for _, c := range recipe {
		fmt.Fprintf(&fb, "- `%s`\n", c)
	}
	if err := os.WriteFile(brief, []byte(fb.String()), 0o644); err != nil {
		return nil, err
	}
	fj := engine.BuildJob(engine.JobRequest{Role: engine.RoleFixer, Task: "stack", Dir: ws.Path, Command: h.Worker,
		Brief: brief, Report: filepath.Join(dir, "fix-report.md"), Findings: findings, Log: filepath.Join(dir, "fixer.log"),
		Timeout: d.timeout, Artifacts: d.artifacts(), Environment: []string{"SPECSTACK_VERDICTS=" + verdictsPath},
		Answer: verdictsPath, Schema: verdictsSchema})
	var fres engine.Result
	if d.executor != nil {
		fres = d.runRemote(ctx, 0, ws.Base[0], d.snapshot().Remote, fj)
	} else {
		fres = engine.RunJob(ctx, fj)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := d.worked(0, engine.RoleFixer, 0, fres); err != nil {
		return nil, err
	}
	if fres.ExitCode != 0 || fres.Err != nil && fres.Agent != nil {
		return nil, d.halt(0, engine.StateFailed, fmt.Sprintf("the whole-stack fixer exited %d%s (log %s)", fres.ExitCode, agentWhy(fres), fj.Log))
	}
	byID, err := engine.ReadFixVerdicts(verdictsPath)
	var notJSON *engine.NotJSONError
	if errors.As(err, &notJSON) {
		d.logf("the whole-stack fixer's verdicts %s are not a JSON array (%v): every finding is without a verdict", verdictsPath, notJSON.Err)
	} else if err != nil {
		return nil, d.halt(0, engine.StateFailed, fmt.Sprintf("the whole-stack fixer's verdicts cannot be read: %v", err))
	}
	return byID, nil
}

// runChecks runs cmds in dir on commit sha, each logged in logs, and
// records a receipt for each, of ticket n (0: the whole stack); it returns
// the commands that are red and were green at the base (a red command
// that failed at the base too is waived, unless it cannot start).
func (d *driver) runChecks(ctx context.Context, n int, dir, sha, stage string, cmds []string, logs string) ([]string, error) {
	task, who := "stack", "whole stack"
	if n != 0 {
		task, who = itoa(n), "#"+itoa(n)
	}
	var red []string
	for i, c := range cmds {
		log := filepath.Join(logs, fmt.Sprintf("%s-%d.log", stage, i+1))
		res := engine.RunJob(ctx, engine.BuildJob(engine.JobRequest{Role: "test", Task: task, Dir: dir, Command: c,
			Log: log, Timeout: d.timeout, Artifacts: d.artifacts()}))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		status := "passed"
		if res.ExitCode != 0 {
			status = "failed"
			if bl, ok := d.baselineOf(c); ok && bl.ExitCode != 0 && !engine.CannotStart(res.ExitCode) {
				status = "waived"
			} else {
				red = append(red, fmt.Sprintf("%q exited %d", c, res.ExitCode))
			}
		}
		if err := d.record(at(n, engine.TicketReceipt{Command: c, ExitCode: res.ExitCode, SHA: sha, Status: status, Stage: stage})); err != nil {
			return nil, err
		}
		d.logf("%s: %s %q at %s: %s", who, stage, c, short(sha), status)
	}
	return red, nil
}

// publishIntegration pushes the integration branch once, opens (or, in a
// recovered publish, adopts) its draft pull request on top of the stack
// and registers it.
func (d *driver) publishIntegration(ctx context.Context, recovering bool) error {
	h := d.doc.Header
	in := *d.snapshot().Integration
	if !in.Pushed {
		if _, err := d.backend.Push(ctx, in.Branch, in.SHA, true); err != nil {
			if errors.Is(err, gitx.ErrRemoteMoved) {
				return d.halt(0, engine.StateNeedsDecision, fmt.Sprintf("integration: %v", err))
			}
			return err
		}
		if err := d.record(run(engine.IntegrationPushed{SHA: in.SHA})); err != nil {
			return err
		}
	}
	if in.PR == 0 {
		var p *ghapi.PullRequest
		if recovering {
			open, err := d.env.GH.Pulls(ctx, ghapi.PullFilter{State: "open", Head: in.Branch})
			if err != nil {
				return err
			}
			if len(open) == 1 {
				p = &open[0]
			}
		}
		if p == nil {
			var body strings.Builder
			fmt.Fprintf(&body, "Integration fixes of the whole-stack review of spec #%d (%s), on top of the stack.\n\nValidated green at %s by fixer\n", h.Spec, h.Title, in.SHA)
			last := map[string]engine.Receipt{}
			for _, r := range d.snapshot().ReviewReceipts {
				if r.Commit == in.SHA {
					last[r.Command] = r
				}
			}
			for _, r := range last {
				if r.Waived {
					fmt.Fprintf(&body, "Waived: %s exited %d\n", r.Command, r.ExitCode)
				}
			}
			s := d.snapshot()
			if len(s.ReviewRejected) > 0 {
				body.WriteString("\nFindings the fixer rejected:\n")
				for _, f := range s.ReviewRejected {
					fmt.Fprintf(&body, "- %s\n", f)
				}
			}
			if len(s.ReviewNoVerdict) > 0 {
				body.WriteString("\nFindings without a verdict (the spec stays open):\n")
				for _, f := range s.ReviewNoVerdict {
					fmt.Fprintf(&body, "- %s\n", f)
				}
			}
			np, err := d.env.GH.CreatePull(ctx, ghapi.NewPull{Title: fmt.Sprintf("Spec #%d: whole-stack review fixes", h.Spec), Head: in.Branch, Base: in.BaseBranch, Draft: true, Body: body.String()})
			if err != nil {
				return fmt.Errorf("open the integration pull request: %w", err)
			}
			p = &np
		}
		if err := d.record(run(engine.IntegrationPR{Number: p.Number, URL: p.HTMLURL, NodeID: p.NodeID})); err != nil {
			return err
		}
		d.logf("integration: opened #%d %s → %s %s", p.Number, in.Branch, in.BaseBranch, p.HTMLURL)
	}
	if err := d.record(run(engine.StackReviewed{Status: "fixed"})); err != nil {
		return err
	}
	return d.backend.Release(ctx, engine.Workspace{Name: in.Branch, Path: d.backend.Path(in.Branch), Base: []string{in.SHA}})
}
