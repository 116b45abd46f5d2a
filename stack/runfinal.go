package stack

import (
	"cmp"
	"github.com/specstack/specstack/internal/engine"

	"github.com/specstack/specstack/internal/agent"

	"context"
	"fmt"
	"io"
	"strings"

	"github.com/specstack/specstack/stack/ghapi"
)

// reconcileStack registers the stack's pull requests, bottom first, as
// one native stack; an error leaves the run unfinalized, for resume to
// register it again.
func (d *driver) reconcileStack(ctx context.Context, nums []int) (*LinkResult, error) {
	res := &LinkResult{}
	stacks, err := d.env.GH.Stacks(ctx)
	if err == nil {
		var plan stackPlan
		if plan, err = planStack(stacks, nums); err == nil {
			err = plan.apply(ctx, d.env.GH, nums, res, d.opts.Progress)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("finalize: %w; every ticket is published, the pull requests stay drafts: gh specstack resume registers the stack again", err)
	}
	return res, nil
}

// remainsMarker tags finalize's comment, so a resumed finalize does not
// comment twice.
func remainsMarker(spec int) string {
	return fmt.Sprintf("<!-- gh-specstack: what remains of spec #%d -->", spec)
}

// finalize reconciles the stack registration, marks every pull request
// ready, and closes the spec from the top pull request when the run is
// complete, or says on the top pull request and the spec what remains.
// It never merges.
func (d *driver) finalize(ctx context.Context) error {
	h := d.doc.Header
	s := d.snapshot()
	nums := layerPRs(s)
	if h.StackMode == ModeNative && len(nums) >= 2 {
		res, err := d.reconcileStack(ctx, nums)
		if err != nil {
			return err
		}
		if res.Stack != s.Stack {
			if err := d.record(run(engine.Stacked{Stack: res.Stack})); err != nil {
				return err
			}
		}
	}
	for _, n := range s.Published {
		t := s.Tickets[n]
		if s.Ready[t.PR] {
			continue
		}
		if err := d.env.GH.MarkReady(ctx, t.NodeID); err != nil {
			return fmt.Errorf("mark #%d ready: %w", t.PR, err)
		}
		if err := d.record(run(engine.Ready{Number: t.PR})); err != nil {
			return err
		}
	}
	if s.Prior.PR != 0 && !s.Ready[s.Prior.PR] {
		if err := d.env.GH.MarkReady(ctx, s.Prior.NodeID); err != nil {
			return fmt.Errorf("mark #%d ready: %w", s.Prior.PR, err)
		}
		if err := d.record(run(engine.Ready{Number: s.Prior.PR})); err != nil {
			return err
		}
	}
	if in := s.Integration; in != nil && in.PR != 0 && !s.Ready[in.PR] {
		if err := d.env.GH.MarkReady(ctx, in.NodeID); err != nil {
			return fmt.Errorf("mark #%d ready: %w", in.PR, err)
		}
		if err := d.record(run(engine.Ready{Number: in.PR})); err != nil {
			return err
		}
	}
	// Worktrees a killed run left after their publish go now.
	for _, n := range s.Published {
		if err := d.backend.Release(ctx, d.workspace(n, s.Tickets[n].Base)); err != nil {
			d.logf("#%d: release its worktree: %v", n, err)
		}
	}
	remains := Remains(h, s)
	top := 0
	if len(nums) > 0 {
		top = nums[len(nums)-1]
	}
	status := engine.FinalComplete
	if len(remains) == 0 && top != 0 {
		p, err := d.env.GH.Pull(ctx, top)
		if err != nil {
			return err
		}
		closes := fmt.Sprintf("Closes #%d", h.Spec)
		if !strings.Contains(p.Body, closes) {
			body := strings.TrimRight(p.Body, "\n") + "\n\n" + closes + "\n"
			if _, err := d.env.GH.UpdatePull(ctx, top, ghapi.PullUpdate{Body: &body}); err != nil {
				return fmt.Errorf("append %q to #%d: %w", closes, top, err)
			}
		}
	} else {
		status = engine.FinalIncomplete
		if len(remains) == 0 {
			remains = []string{"no ticket was published"}
		}
		text := remainsMarker(h.Spec) + "\n" + fmt.Sprintf("gh specstack run of spec #%d finished, but the spec stays open:\n", h.Spec)
		for _, r := range remains {
			text += "- " + r + "\n"
		}
		targets := []int{h.Spec}
		if top != 0 {
			targets = []int{top, h.Spec}
		}
		for _, n := range targets {
			cs, err := d.env.GH.Comments(ctx, n)
			if err != nil {
				return err
			}
			seen := false
			for _, c := range cs {
				seen = seen || strings.Contains(c.Body, remainsMarker(h.Spec))
			}
			if !seen {
				if _, err := d.env.GH.AddComment(ctx, n, text); err != nil {
					return fmt.Errorf("comment on #%d: %w", n, err)
				}
			}
		}
	}
	return d.record(run(engine.Finalized{Status: status}))
}

func (d *driver) snapshot() *engine.RunState {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state
}

// Remains lists what keeps the spec open; it fails closed: a ticket not
// published (a subsumed one included), a ticket deferred to a person (and
// those it blocks), a gate finding left unresolved, a whole-stack review
// finding without a verdict, a whole-stack review that never ran.
func Remains(h RunHeader, s *engine.RunState) []string {
	var res []string
	for _, e := range h.Excluded {
		res = append(res, fmt.Sprintf("#%d %s: deferred, %s; not built by this run", e.Number, e.Title, e.Reason))
	}
	for _, rt := range h.Tickets {
		t := s.Tickets[rt.Number]
		switch t.State {
		case engine.StatePublished, engine.StateFinishedPrior:
		case engine.StateSubsumed:
			res = append(res, fmt.Sprintf("#%d %s: subsumed (its branch added nothing to the stack); still open", t.Number, t.Title))
		default:
			res = append(res, fmt.Sprintf("#%d %s: %s", t.Number, t.Title, t.State))
		}
		for _, f := range t.Unresolved {
			res = append(res, fmt.Sprintf("#%d: unresolved gate finding: %s", t.Number, f))
		}
	}
	for _, f := range s.ReviewNoVerdict {
		res = append(res, "whole-stack review finding without a verdict: "+f)
	}
	if h.Reviewer != "" && s.Review == "" && len(s.Published) > 0 {
		res = append(res, "the whole-stack review never ran")
	}
	return res
}

// RunStatus is what `gh specstack status` and `run` report.
type RunStatus struct {
	Spec      int                 `json:"spec"`
	Title     string              `json:"title"`
	Repo      string              `json:"repo"`
	StackMode string              `json:"stack_mode"`
	Base      string              `json:"base"`
	BaseSHA   string              `json:"base_sha"`
	Order     string              `json:"order"`
	State     string              `json:"state"` // running, interrupted, halted, complete, incomplete
	Halted    string              `json:"halted,omitempty"`
	Baseline  []engine.Baseline   `json:"baseline"`
	Tickets   []*engine.TicketRun `json:"tickets"`
	Excluded  []Excluded          `json:"excluded"`
	Stack     int                 `json:"stack,omitempty"`
	Remains   []string            `json:"remains"`
	// Review is the whole-stack review's outcome ("" when none ran).
	Review         string           `json:"review,omitempty"`
	ReviewReceipts []engine.Receipt `json:"review_receipts,omitempty"`
	// ReviewRemote is the whole-stack fixer's job on an executor.
	ReviewRemote *engine.RemoteRun      `json:"review_remote,omitempty"`
	Integration  *engine.IntegrationRun `json:"integration,omitempty"`
	PriorBranch  string                 `json:"prior_branch,omitempty"`
	Prior        engine.PriorRun        `json:"prior"`
	// MergeInstructions say how to merge the stack, once finalized.
	MergeInstructions []string `json:"merge_instructions,omitempty"`
	// Agent is what every agent job of the run spent.
	Agent *agent.Usage `json:"agent,omitempty"`
	// Workspaces is where the tickets are built: "jj" (jj workspaces) or
	// "git" (git worktrees); absent for a run recorded before jj
	// workspaces, which used git worktrees.
	Workspaces string `json:"workspaces,omitempty"`
	// Executor is where the workers (implementers, fixers) ran, when
	// not here (github-actions).
	Executor string `json:"executor,omitempty"`
}

// StatusOf renders a run's ledger as its status.
func StatusOf(doc *RunDoc) *RunStatus {
	h, s := doc.Header, foldRun(doc)
	st := &RunStatus{Spec: h.Spec, Title: h.Title, Repo: h.Repo, StackMode: h.StackMode, Base: h.Base, BaseSHA: h.BaseSHA,
		Order: h.Order, State: "running", Halted: s.Halted, Baseline: []engine.Baseline{}, Excluded: h.Excluded, Stack: s.Stack,
		Remains: Remains(h, s), Review: s.Review, ReviewReceipts: s.ReviewReceipts, ReviewRemote: s.Remote, Integration: s.Integration,
		PriorBranch: h.Prior, Prior: s.Prior, Agent: s.Agent, Workspaces: h.Workspaces, Executor: h.Executor}
	if st.Excluded == nil {
		st.Excluded = []Excluded{}
	}
	if st.Remains == nil {
		st.Remains = []string{}
	}
	for _, c := range unionOf(h) {
		if b, ok := s.Baseline[c]; ok {
			st.Baseline = append(st.Baseline, b)
		}
	}
	// Published tickets in stack order, bottom first, then the others.
	for _, n := range s.Published {
		st.Tickets = append(st.Tickets, s.Tickets[n])
	}
	for _, t := range h.Tickets {
		if s.Tickets[t.Number].State != engine.StatePublished {
			st.Tickets = append(st.Tickets, s.Tickets[t.Number])
		}
	}
	switch {
	case s.Finalized == engine.FinalAborted:
		st.State = s.Finalized
	case s.Finalized != "":
		st.State = s.Finalized
		st.MergeInstructions = mergeInstructions(h, s)
	case s.Halted != "":
		st.State = "halted"
	}
	return st
}

func (d *driver) status() *RunStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	return StatusOf(d.doc)
}

func unionOf(h RunHeader) []string {
	var res []string
	seen := map[string]bool{}
	for _, t := range h.Tickets {
		for _, c := range t.PerChange {
			if k := NormalizeCommand(c); !seen[k] {
				seen[k] = true
				res = append(res, c)
			}
		}
	}
	return res
}

// mergeInstructions say how to merge the finished stack in its mode.
func mergeInstructions(h RunHeader, s *engine.RunState) []string {
	var layers []LinkLayer
	if s.Prior.PR != 0 {
		layers = append(layers, LinkLayer{Branch: h.Prior, PR: s.Prior.PR, Base: h.Base, URL: s.Prior.URL})
	}
	for _, n := range s.Published {
		t := s.Tickets[n]
		layers = append(layers, LinkLayer{Branch: TicketBranch(n), PR: t.PR, Base: t.BaseBranch, URL: t.URL})
	}
	if in := s.Integration; in != nil && in.PR != 0 {
		layers = append(layers, LinkLayer{Branch: in.Branch, PR: in.PR, Base: in.BaseBranch, URL: in.URL})
	}
	if len(layers) == 0 {
		return nil
	}
	top := layers[len(layers)-1]
	if h.StackMode == ModeNative {
		return []string{fmt.Sprintf("Merge the stack from the top: merge #%d (%s) with its stack, which merges every pull request below it into %s.", top.PR, top.URL, h.Base)}
	}
	return chainInstructions(layers)
}

// WriteText renders the status for a person.
func (st *RunStatus) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "spec #%d %q in %s: %s\n", st.Spec, st.Title, st.Repo, st.State)
	fmt.Fprintf(&b, "stack mode: %s; base: %s at %s; order: %s\n", st.StackMode, st.Base, st.BaseSHA, st.Order)
	fmt.Fprintf(&b, "workspaces: %s\n", WorkspacesText(st.Workspaces))
	if st.Executor != "" {
		fmt.Fprintf(&b, "executor: %s\n", st.Executor)
	}
	for _, bl := range st.Baseline {
		if bl.ExitCode != 0 {
			fmt.Fprintf(&b, "baseline: %q already fails at the base (exit %d)\n", bl.Command, bl.ExitCode)
		}
	}
	for _, t := range st.Tickets {
		fmt.Fprintf(&b, "  #%d %s: %s", t.Number, t.Title, t.State)
		if t.PR != 0 {
			fmt.Fprintf(&b, " #%d %s → %s %s", t.PR, TicketBranch(t.Number), t.BaseBranch, t.URL)
		}
		b.WriteString("\n")
		if t.Reason != "" {
			fmt.Fprintf(&b, "    %s\n", t.Reason)
		}
		for _, r := range lastReceipts(*t) {
			verdict := "passed"
			switch {
			case r.Waived:
				verdict = fmt.Sprintf("waived (exit %d, failing at the base too)", r.ExitCode)
			case !r.Passed:
				verdict = fmt.Sprintf("failed (exit %d)", r.ExitCode)
			}
			fmt.Fprintf(&b, "    %s at %s: %s\n", r.Command, short(r.Commit), verdict)
		}
		for _, f := range t.Dropped {
			fmt.Fprintf(&b, "    dropped (re-raised a rejected finding without falsifying it): %s\n", f)
		}
		for _, f := range t.Unresolved {
			fmt.Fprintf(&b, "    unresolved: %s\n", f)
		}
		if t.Agent != nil {
			fmt.Fprintf(&b, "    agents: %s\n", t.Agent)
		}
		remoteLine(&b, t.Remote)
	}
	if st.Review != "" {
		fmt.Fprintf(&b, "whole-stack review: %s\n", st.Review)
		remoteLine(&b, st.ReviewRemote)
		for _, r := range st.ReviewReceipts {
			fmt.Fprintf(&b, "    %s (%s) at %s: exit %d\n", r.Command, r.Stage, short(r.Commit), r.ExitCode)
		}
	}
	if st.Prior.PR != 0 {
		fmt.Fprintf(&b, "  layer 0 (prior work, never gated): #%d %s → %s %s\n", st.Prior.PR, st.PriorBranch, st.Base, st.Prior.URL)
	}
	if in := st.Integration; in != nil && in.PR != 0 {
		fmt.Fprintf(&b, "  integration: #%d %s → %s %s\n", in.PR, in.Branch, in.BaseBranch, in.URL)
	}
	for _, e := range st.Excluded {
		fmt.Fprintf(&b, "  #%d %s: excluded, %s\n", e.Number, e.Title, e.Reason)
	}
	if st.Agent != nil {
		fmt.Fprintf(&b, "agents: %s\n", st.Agent)
	}
	if st.Halted != "" {
		fmt.Fprintf(&b, "halted: %s\n", st.Halted)
	}
	if st.State == engine.FinalIncomplete {
		b.WriteString("the spec stays open:\n")
		for _, r := range st.Remains {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	if st.State == engine.FinalComplete {
		fmt.Fprintf(&b, "complete: the top pull request closes #%d\n", st.Spec)
	}
	for _, m := range st.MergeInstructions {
		fmt.Fprintf(&b, "%s\n", m)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// remoteLine says where a job on an executor ran, and how it ended.
func remoteLine(b *strings.Builder, rr *engine.RemoteRun) {
	if rr == nil || rr.URL == "" {
		return
	}
	state := cmp.Or(rr.Conclusion, "running")
	if rr.Runner != "" {
		state += ", runner " + rr.Runner
	}
	fmt.Fprintf(b, "    on GitHub Actions (%s): %s\n", state, rr.URL)
}
