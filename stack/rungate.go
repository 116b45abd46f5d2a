package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/engine"
)

// gate alternates review and fix on ticket n (engine.Gate) until a
// review finds nothing blocking or --gate-max-rounds is reached (then the
// ticket publishes with what is unresolved named). unmet are the
// validation commands red now; it returns those still red.
func (d *driver) gate(ctx context.Context, n int, ws engine.Workspace, unmet []string) ([]string, error) {
	g := engine.Gate{
		MaxRounds: d.doc.Header.GateMaxRounds,
		Review: func(ctx context.Context, round int, rejected []engine.Rejection, noVerdict []engine.Finding) ([]engine.Finding, error) {
			return d.review(ctx, n, ws, round, rejected, noVerdict)
		},
		Red: func(round int) []engine.Finding {
			var red []engine.Finding
			for i, u := range unmet {
				red = append(red, engine.Finding{ID: fmt.Sprintf("v%d-%d", round, i+1), Kind: engine.KindRedValidation, Message: u + " (green at the base)"})
			}
			return red
		},
		Fix: func(ctx context.Context, round int, blocking []engine.Finding) (map[string]engine.FixVerdict, error) {
			return d.fix(ctx, n, ws, round, blocking)
		},
		Refresh: func(ctx context.Context, round int) error {
			p, err := d.backend.Collect(ctx, ws)
			if err != nil {
				return err
			}
			sha := p.Commit
			if sha == "" {
				return fmt.Errorf("ticket #%d: after the fix the branch adds nothing to its base", n)
			}
			if err := d.record(at(n, engine.TicketCollected{SHA: sha})); err != nil {
				return err
			}
			cut, _, _ := d.ticket(n)
			if err := d.descends(ctx, n, cut.Base, cut.BaseBranch, sha); err != nil {
				return err
			}
			unmet, err = d.validate(ctx, n, ws.Path, sha, "validate", nil)
			return err
		},
		Record: func(s engine.GateStep) error { return d.recordGate(n, s) },
	}
	if _, err := g.Run(ctx); err != nil {
		return nil, err
	}
	return unmet, nil
}

// recordGate records and logs a step of ticket n's gate (0: the whole
// stack's review, whose rounds are its own events).
func (d *driver) recordGate(n int, s engine.GateStep) error {
	switch s.Kind {
	case engine.GateDropped:
		d.logf("#%d: gate round %d: dropped %s", n, s.Round, s.Reason)
		return d.record(at(n, engine.FindingDropped{Round: s.Round, Finding: s.Finding.Label(), Reason: s.Reason}))
	case engine.GateReviewed:
		if n == 0 {
			d.logf("whole-stack review: %d blocking finding(s)", s.Count)
			return nil
		}
		if err := d.record(at(n, engine.RoundReviewed{Round: s.Round, Status: s.Status, Findings: s.Count})); err != nil {
			return err
		}
		d.logf("#%d: gate round %d: %s (%d blocking)", n, s.Round, s.Status, s.Count)
	case engine.GateUnresolved:
		return d.record(at(n, engine.FindingUnresolved{Round: s.Round, Finding: s.Finding.Label()}))
	case engine.GateVerdict:
		return d.record(at(n, engine.VerdictGiven{Round: s.Round, Status: s.Status, Finding: s.Finding.Label(), Reason: s.Reason}))
	}
	return nil
}

// review runs the reviewer on ticket n's branch against the base it was
// cut from and reads its findings (ids given to those without one).
func (d *driver) review(ctx context.Context, n int, ws engine.Workspace, round int, rejected []engine.Rejection, noVerdict []engine.Finding) ([]engine.Finding, error) {
	t, _, _ := d.ticket(n)
	dir := filepath.Join(d.ticketDir(n), fmt.Sprintf("gate-%d", round))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	diff, err := d.backend.DiffRange(ctx, t.Base, t.SHA)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{"diff": filepath.Join(dir, "diff.patch"), "brief": filepath.Join(dir, "review.md"),
		"findings": filepath.Join(dir, "findings.json"), "report": filepath.Join(dir, "review-report.md"),
		"rejected": filepath.Join(dir, "rejected.json")}
	os.Remove(paths["findings"])
	if err := os.WriteFile(paths["diff"], diff, 0o644); err != nil {
		return nil, err
	}
	if rejected == nil {
		rejected = []engine.Rejection{}
	}
	if err := writeJSON(paths["rejected"], rejected); err != nil {
		return nil, err
	}
	rt := d.doc.Header.Tickets[d.index(n)]
	var b strings.Builder
	fmt.Fprintf(&b, "# Gate review of ticket #%d: %s (round %d)\n\nReview branch %s at %s against the base it was cut from, %s (diff: %s).\n",
		n, rt.Title, round, TicketBranch(n), t.SHA, t.Base, paths["diff"])
	b.WriteString("Only an unmet criterion, a red validation or a correctness bug may block: write them to $SPECSTACK_FINDINGS as a JSON array of {\"kind\": \"unmet-criterion\"|\"red-validation\"|\"correctness\"|\"minor\", \"file\", \"line\", \"message\"}; anything else is minor and passes.\n\n")
	fmt.Fprintf(&b, "## Ticket\n\n%s\n\n## Receipts at %s\n\n", strings.TrimSpace(rt.Body), short(t.SHA))
	for _, r := range lastReceipts(t) {
		fmt.Fprintf(&b, "- `%s` exited %d (%s)\n", r.Command, r.ExitCode, map[bool]string{true: "passed", false: map[bool]string{true: "waived: it fails at the base too", false: "red"}[r.Waived]}[r.Passed])
	}
	if len(rejected) > 0 {
		b.WriteString("\n## Rejected findings (also in $SPECSTACK_REJECTED)\n\nThe fixer rejected these with a reason. Raise one again only with a falsification of that reason (\"reraises\": its id, \"falsifies\": why the reason is false); otherwise it is dropped.\n\n")
		for _, r := range rejected {
			fmt.Fprintf(&b, "- %s — rejected: %s\n", r.Finding.Label(), r.Reason)
		}
	}
	if len(noVerdict) > 0 {
		b.WriteString("\n## Findings the fixer gave no verdict\n\nCheck each explicitly.\n\n")
		for _, f := range noVerdict {
			fmt.Fprintf(&b, "- %s\n", f.Label())
		}
	}
	if err := os.WriteFile(paths["brief"], []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	j := engine.BuildJob(engine.JobRequest{Role: engine.RoleReviewer, Task: itoa(n), Dir: ws.Path, Command: d.doc.Header.Reviewer,
		Brief: paths["brief"], Report: paths["report"], Findings: paths["findings"], Diff: paths["diff"],
		Log: filepath.Join(d.ticketDir(n), "reviewer.log"), Timeout: d.timeout, Artifacts: d.artifacts(),
		Environment: []string{"SPECSTACK_ROUND=" + itoa(round), "SPECSTACK_REJECTED=" + paths["rejected"]},
		Answer:      paths["findings"], Schema: gateFindingsSchema})
	res := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := d.worked(n, engine.RoleReviewer, round, res); err != nil {
		return nil, err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		// A reviewer that dies is never counted as clean.
		return nil, d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the reviewer exited %d%s in gate round %d (log %s)", n, res.ExitCode, agentWhy(res), round, j.Log))
	}
	found, err := engine.ReadGateFindings(paths["findings"], fmt.Sprintf("r%d-", round))
	var notJSON *engine.NotJSONError
	if errors.As(err, &notJSON) {
		return nil, d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the reviewer's findings %s are not a JSON array of findings: %v", n, paths["findings"], notJSON.Err))
	}
	if err != nil {
		return nil, d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the reviewer's findings in gate round %d cannot be read (a review that cannot be read is never counted as clean): %v", n, round, err))
	}
	return found, nil
}

// fix hands the blocking findings to the worker as a fixer and reads its
// verdicts, by finding id.
func (d *driver) fix(ctx context.Context, n int, ws engine.Workspace, round int, blocking []engine.Finding) (map[string]engine.FixVerdict, error) {
	dir := filepath.Join(d.ticketDir(n), fmt.Sprintf("gate-%d", round))
	findings, verdicts, report := filepath.Join(dir, "blocking.json"), filepath.Join(dir, "verdicts.json"), filepath.Join(dir, "fix-report.md")
	os.Remove(verdicts)
	if err := writeJSON(findings, blocking); err != nil {
		return nil, err
	}
	brief := filepath.Join(dir, "fix.md")
	text := fmt.Sprintf("# Fix ticket #%d (gate round %d)\n\nThe findings in $SPECSTACK_FINDINGS block the ticket. Fix each, or reject it with a reason anyone can check. Write one verdict per finding to $SPECSTACK_VERDICTS as a JSON array of {\"id\", \"verdict\": \"fixed\"|\"rejected\", \"reason\"}; a finding without a verdict is named to the next reviewer.\n", n, round)
	if err := os.WriteFile(brief, []byte(text), 0o644); err != nil {
		return nil, err
	}
	j := d.workerJob(n, ws.Path, engine.RoleFixer, brief, report, findings)
	j.Environment = append(j.Environment, "SPECSTACK_VERDICTS="+verdicts, "SPECSTACK_ROUND="+itoa(round))
	j.Answer, j.Schema = verdicts, verdictsSchema
	var res engine.Result
	if d.executor != nil {
		t, _, _ := d.ticket(n)
		res = d.runRemote(ctx, n, t.SHA, t.Remote, j)
	} else {
		res = engine.RunJob(ctx, j)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := d.worked(n, engine.RoleFixer, round, res); err != nil {
		return nil, err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		return nil, d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the fixer exited %d%s in gate round %d (log %s)", n, res.ExitCode, agentWhy(res), round, d.workerLog(n)))
	}
	byID, err := engine.ReadFixVerdicts(verdicts)
	var notJSON *engine.NotJSONError
	if errors.As(err, &notJSON) {
		d.logf("#%d: the fixer's verdicts %s are not a JSON array (%v): every finding is without a verdict", n, verdicts, notJSON.Err)
	} else if err != nil {
		return nil, d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the fixer's verdicts in gate round %d cannot be read: %v", n, round, err))
	}
	return byID, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
