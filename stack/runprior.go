package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/stack/ghapi"
)

// Finished is the graph step's answer for one ticket
// (SPECSTACK_FINISHED, a JSON array): finished on the prior work, with
// the evidence.
type Finished struct {
	Ticket   int    `json:"ticket"`
	Evidence string `json:"evidence"`
}

// prior makes the prior work (--start-ref) the stack's layer 0: the
// worker's graph step says which tickets it already finishes (recorded
// with the worker's evidence; those block nothing and are closed by the
// layer-0 pull request), the branch is pushed once when origin lacks it,
// and its own draft pull request says it carries work this run never
// gated.
func (d *driver) prior(ctx context.Context) error {
	h := d.doc.Header
	if h.Prior == "" {
		return nil
	}
	s := d.snapshot()
	if !s.Prior.Graphed {
		if err := d.graph(ctx); err != nil {
			return err
		}
	}
	if !d.snapshot().Prior.Pushed {
		r, err := d.backend.Push(ctx, h.Prior, h.BaseSHA, false)
		if errors.Is(err, gitx.ErrRemoteMoved) {
			return d.halt(0, engine.StateNeedsDecision, fmt.Sprintf("prior work: %v", err))
		}
		if err != nil {
			return err
		}
		d.logf("prior work: %s %s (%s)", r, h.Prior, short(h.BaseSHA))
		if err := d.record(run(engine.PriorPushed{SHA: h.BaseSHA})); err != nil {
			return err
		}
	}
	if d.snapshot().Prior.PR != 0 {
		return nil
	}
	s = d.snapshot()
	var body strings.Builder
	fmt.Fprintf(&body, "Layer 0 of %d planned for spec #%d (%s).\n\nThis branch carries prior work, done before this run: gh specstack never gated it.\n", len(h.Tickets), h.Spec, h.Title)
	for _, t := range h.Tickets {
		if st := s.Tickets[t.Number]; st.State == engine.StateFinishedPrior {
			fmt.Fprintf(&body, "\nCloses #%d (already finished here: %s)", t.Number, st.Reason)
		}
	}
	body.WriteString("\n")
	text := body.String()
	open, err := d.env.GH.Pulls(ctx, ghapi.PullFilter{State: "open", Head: h.Prior})
	if err != nil {
		return err
	}
	var p ghapi.PullRequest
	if len(open) == 1 {
		if p, err = d.env.GH.UpdatePull(ctx, open[0].Number, ghapi.PullUpdate{Body: &text}); err != nil {
			return err
		}
	} else {
		if p, err = d.env.GH.CreatePull(ctx, ghapi.NewPull{Title: fmt.Sprintf("Spec #%d: prior work", h.Spec), Head: h.Prior, Base: h.Base, Draft: true, Body: text}); err != nil {
			return fmt.Errorf("open the prior work's draft pull request: %w", err)
		}
	}
	d.logf("prior work: #%d %s → %s %s", p.Number, h.Prior, h.Base, p.HTMLURL)
	return d.record(run(engine.PriorPR{Number: p.Number, URL: p.HTMLURL, NodeID: p.NodeID}))
}

// graph asks the worker (role graph), in a worktree at the prior work,
// which tickets it already finishes.
func (d *driver) graph(ctx context.Context) error {
	h := d.doc.Header
	dir := filepath.Join(d.artifacts(), "prior")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ws := engine.Workspace{Name: "specstack-prior", Base: []string{h.BaseSHA}, Message: "prior work"}
	ws, err := d.backend.Provision(ctx, ws)
	if err != nil {
		return err
	}
	defer d.backend.Release(context.WithoutCancel(ctx), ws)
	brief, finished := filepath.Join(dir, "graph.md"), filepath.Join(dir, "finished.json")
	os.Remove(finished)
	var b strings.Builder
	fmt.Fprintf(&b, "# Prior work for spec #%d: %s\n\nThe checkout is %s at %s, work done before this run. For each ticket below it already finishes, write {\"ticket\": N, \"evidence\": \"what shows it\"} to $SPECSTACK_FINISHED (a JSON array); leave out every other.\n\n", h.Spec, h.Title, h.Prior, h.BaseSHA)
	for _, t := range h.Tickets {
		fmt.Fprintf(&b, "## #%d %s\n\n%s\n\n", t.Number, t.Title, strings.TrimSpace(t.Body))
	}
	if err := os.WriteFile(brief, []byte(b.String()), 0o644); err != nil {
		return err
	}
	j := engine.BuildJob(engine.JobRequest{Role: engine.RoleGraph, Task: "prior", Dir: ws.Path, Command: h.Worker, Brief: brief,
		Report: filepath.Join(dir, "report.md"), Log: filepath.Join(dir, "graph.log"), Timeout: d.timeout, Artifacts: d.artifacts(),
		Environment: []string{"SPECSTACK_FINISHED=" + finished},
		Answer:      finished, Schema: finishedSchema})
	res := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := d.worked(0, engine.RoleGraph, 0, res); err != nil {
		return err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		return d.halt(0, engine.StateFailed, fmt.Sprintf("prior work: the worker's graph step exited %d%s (log %s)", res.ExitCode, agentWhy(res), j.Log))
	}
	var fs []Finished
	data, err := readWorkerFile(finished)
	if err != nil {
		return d.halt(0, engine.StateFailed, fmt.Sprintf("prior work: the worker's answer cannot be read: %v", err))
	}
	if strings.TrimSpace(string(data)) != "" {
		if err := json.Unmarshal(data, &fs); err != nil {
			return d.halt(0, engine.StateFailed, fmt.Sprintf("prior work: %s is not a JSON array of {ticket, evidence}: %v", finished, err))
		}
	}
	for _, f := range fs {
		if d.index(f.Ticket) < 0 {
			d.logf("prior work: the graph step named #%d, which is not a planned ticket: ignored", f.Ticket)
			continue
		}
		if strings.TrimSpace(f.Evidence) == "" {
			d.logf("prior work: the graph step named #%d without evidence: it is built", f.Ticket)
			continue
		}
		// The claim is the worker's word; a check of the ticket's that
		// fails at the prior work is a fact against it.
		if red := d.redAtBase(f.Ticket); red != "" {
			d.logf("prior work: the graph step named #%d finished (%s), but its check %s at the prior work: it is built", f.Ticket, f.Evidence, red)
			continue
		}
		if err := d.record(at(f.Ticket, engine.PriorFinished{Evidence: f.Evidence})); err != nil {
			return err
		}
		d.logf("prior work: #%d already finished (%s)", f.Ticket, f.Evidence)
	}
	return d.record(run(engine.PriorGraphed{}))
}

// redAtBase names the first per-change command of ticket n that failed
// at the pinned base (the baseline, measured before the graph step), ""
// when none did.
func (d *driver) redAtBase(n int) string {
	i := d.index(n)
	if i < 0 {
		return ""
	}
	// The baseline measured each command once, under the spelling of
	// the first ticket that named it (perChangeUnion).
	red := map[string]int{}
	for _, b := range d.snapshot().Baseline {
		if b.ExitCode != 0 {
			red[NormalizeCommand(b.Command)] = b.ExitCode
		}
	}
	for _, c := range d.doc.Header.Tickets[i].PerChange {
		if code, ok := red[NormalizeCommand(c)]; ok {
			return fmt.Sprintf("%q exits %d", c, code)
		}
	}
	return ""
}
