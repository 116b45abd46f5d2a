package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/engine"
)

// Finding kinds a gate reviewer writes. Only the first three block; any
// other kind (or none) is minor and passes.
const (
	KindUnmetCriterion = "unmet-criterion"
	KindRedValidation  = "red-validation"
	KindCorrectness    = "correctness"
)

// GateFinding is one finding of a gate reviewer (SPECSTACK_FINDINGS, a
// JSON array). A finding that raises again one the fixer rejected must
// say why the recorded reason is false in Falsifies, else it is dropped.
type GateFinding struct {
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Message   string `json:"message"`
	Reraises  string `json:"reraises,omitempty"`  // the id of the rejected finding it raises again
	Falsifies string `json:"falsifies,omitempty"` // why the rejection's reason is false
}

// Blocking reports whether the finding may block a ticket.
func (f GateFinding) Blocking() bool {
	switch f.Kind {
	case KindUnmetCriterion, KindRedValidation, KindCorrectness:
		return true
	}
	return false
}

func (f GateFinding) label() string {
	s := f.ID + " (" + f.Kind + ")"
	if f.File != "" {
		s += " " + f.File
		if f.Line > 0 {
			s += fmt.Sprintf(":%d", f.Line)
		}
	}
	return s + ": " + f.Message
}

// Verdict is a fixer's answer to one finding (SPECSTACK_VERDICTS, a JSON
// array): fixed, or rejected with a checkable reason.
type Verdict struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"` // fixed or rejected
	Reason  string `json:"reason,omitempty"`
}

// Rejection is a finding a fixer rejected, carried to every later
// reviewer of the ticket (SPECSTACK_REJECTED, a JSON array).
type Rejection struct {
	Finding GateFinding `json:"finding"`
	Reason  string      `json:"reason"`
}

func sameFinding(a, b GateFinding) bool {
	return strings.EqualFold(a.File, b.File) && strings.EqualFold(NormalizeCommand(a.Message), NormalizeCommand(b.Message))
}

// gate alternates review and fix on ticket n until a review finds
// nothing blocking or --gate-max-rounds is reached (then the ticket
// publishes with what is unresolved named). unmet are the validation
// commands red now; it returns those still red.
func (d *driver) gate(ctx context.Context, n int, ws engine.Workspace, unmet []string) ([]string, error) {
	h := d.doc.Header
	var rejected []Rejection
	var noVerdict []GateFinding
	for round := 1; ; round++ {
		found, err := d.review(ctx, n, ws, round, rejected, noVerdict)
		if err != nil {
			return nil, err
		}
		var blocking []GateFinding
		for _, f := range found {
			if !f.Blocking() {
				continue
			}
			if r, ok := rerejected(f, rejected); ok && strings.TrimSpace(f.Falsifies) == "" {
				reason := fmt.Sprintf("%s raises again %s, rejected because %q, without falsifying that reason", f.ID, r.Finding.ID, r.Reason)
				if err := d.record(RunEvent{Kind: evDropped, Ticket: n, Round: round, Finding: f.label(), Reason: reason}); err != nil {
					return nil, err
				}
				d.logf("#%d: gate round %d: dropped %s", n, round, reason)
				continue
			}
			blocking = append(blocking, f)
		}
		for i, u := range unmet {
			blocking = append(blocking, GateFinding{ID: fmt.Sprintf("v%d-%d", round, i+1), Kind: KindRedValidation, Message: u + " (green at the base)"})
		}
		status := "passed"
		if len(blocking) > 0 {
			status = "blocked"
		}
		if err := d.record(RunEvent{Kind: evReview, Ticket: n, Round: round, Status: status, Findings: len(blocking)}); err != nil {
			return nil, err
		}
		d.logf("#%d: gate round %d: %s (%d blocking)", n, round, status, len(blocking))
		if len(blocking) == 0 {
			return unmet, nil
		}
		if round >= h.GateMaxRounds {
			for _, f := range blocking {
				if f.Kind == KindRedValidation {
					continue // a red check never publishes: unmet halts
				}
				if err := d.record(RunEvent{Kind: evUnresolved, Ticket: n, Round: round, Finding: f.label()}); err != nil {
					return nil, err
				}
			}
			return unmet, nil
		}
		verdicts, err := d.fix(ctx, n, ws, round, blocking)
		if err != nil {
			return nil, err
		}
		noVerdict = nil
		for _, f := range blocking {
			v, ok := verdicts[f.ID]
			switch {
			case ok && v.Verdict == "rejected" && strings.TrimSpace(v.Reason) != "":
				rejected = append(rejected, Rejection{Finding: f, Reason: v.Reason})
			case ok && v.Verdict == "fixed":
			default:
				v = Verdict{ID: f.ID, Verdict: "none"}
				noVerdict = append(noVerdict, f)
			}
			if err := d.record(RunEvent{Kind: evVerdict, Ticket: n, Round: round, Status: v.Verdict, Finding: f.label(), Reason: v.Reason}); err != nil {
				return nil, err
			}
		}
		p, err := d.backend.Collect(ctx, ws)
		if err != nil {
			return nil, err
		}
		sha := p.Commit
		if sha == "" {
			return nil, fmt.Errorf("ticket #%d: after the fix the branch adds nothing to its base", n)
		}
		if err := d.record(RunEvent{Kind: evCollected, Ticket: n, SHA: sha}); err != nil {
			return nil, err
		}
		cut, _, _ := d.ticket(n)
		if err := d.descends(ctx, n, cut.Base, cut.BaseBranch, sha); err != nil {
			return nil, err
		}
		if unmet, err = d.validate(ctx, n, ws.Path, sha, "validate", nil); err != nil {
			return nil, err
		}
	}
}

func rerejected(f GateFinding, rejected []Rejection) (Rejection, bool) {
	for _, r := range rejected {
		if (f.Reraises != "" && f.Reraises == r.Finding.ID) || sameFinding(f, r.Finding) {
			return r, true
		}
	}
	return Rejection{}, false
}

// review runs the reviewer on ticket n's branch against the base it was
// cut from and reads its findings (ids given to those without one).
func (d *driver) review(ctx context.Context, n int, ws engine.Workspace, round int, rejected []Rejection, noVerdict []GateFinding) ([]GateFinding, error) {
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
		rejected = []Rejection{}
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
			fmt.Fprintf(&b, "- %s — rejected: %s\n", r.Finding.label(), r.Reason)
		}
	}
	if len(noVerdict) > 0 {
		b.WriteString("\n## Findings the fixer gave no verdict\n\nCheck each explicitly.\n\n")
		for _, f := range noVerdict {
			fmt.Fprintf(&b, "- %s\n", f.label())
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
		return nil, d.halt(n, StateFailed, fmt.Sprintf("ticket #%d: the reviewer exited %d%s in gate round %d (log %s)", n, res.ExitCode, agentWhy(res), round, j.Log))
	}
	var found []GateFinding
	data, err := readWorkerFile(paths["findings"])
	if err != nil {
		return nil, d.halt(n, StateFailed, fmt.Sprintf("ticket #%d: the reviewer's findings in gate round %d cannot be read (a review that cannot be read is never counted as clean): %v", n, round, err))
	}
	if strings.TrimSpace(string(data)) != "" {
		if err := json.Unmarshal(data, &found); err != nil {
			return nil, d.halt(n, StateFailed, fmt.Sprintf("ticket #%d: the reviewer's findings %s are not a JSON array of findings: %v", n, paths["findings"], err))
		}
	}
	for i := range found {
		if found[i].ID == "" {
			found[i].ID = fmt.Sprintf("r%d-%d", round, i+1)
		}
	}
	return found, nil
}

// fix hands the blocking findings to the worker as a fixer and reads its
// verdicts, by finding id.
func (d *driver) fix(ctx context.Context, n int, ws engine.Workspace, round int, blocking []GateFinding) (map[string]Verdict, error) {
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
	res := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := d.worked(n, engine.RoleFixer, round, res); err != nil {
		return nil, err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		return nil, d.halt(n, StateFailed, fmt.Sprintf("ticket #%d: the fixer exited %d%s in gate round %d (log %s)", n, res.ExitCode, agentWhy(res), round, d.workerLog(n)))
	}
	res2 := map[string]Verdict{}
	var vs []Verdict
	data, err := readWorkerFile(verdicts)
	if err != nil {
		return nil, d.halt(n, StateFailed, fmt.Sprintf("ticket #%d: the fixer's verdicts in gate round %d cannot be read: %v", n, round, err))
	}
	if strings.TrimSpace(string(data)) != "" {
		if err := json.Unmarshal(data, &vs); err != nil {
			d.logf("#%d: the fixer's verdicts %s are not a JSON array (%v): every finding is without a verdict", n, verdicts, err)
		}
	}
	for _, v := range vs {
		res2[v.ID] = v
	}
	return res2, nil
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
