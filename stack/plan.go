package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// Stack modes.
const (
	ModeNative = "native" // a native GitHub stack
	ModeChain  = "chain"  // a plain --base chain
)

// PlanRequest asks for a spec's plan.
type PlanRequest struct {
	Spec       int
	Base       string // --base; "" to settle it from the checkout
	StartRef   string // --start-ref: prior work; "" for none
	StackMode  string // native, chain, or "" to probe
	HumanLabel string // "" for DefaultHumanLabel
}

// Plan is what `gh specstack plan` reports.
type Plan struct {
	Spec          int         `json:"spec"`
	Title         string      `json:"title"`
	Repo          string      `json:"repo"`
	StackMode     string      `json:"stack_mode"`
	Base          string      `json:"base"`
	StartRef      string      `json:"start_ref"`
	BaseSHA       string      `json:"base_sha"`
	HumanLabel    string      `json:"human_label"`
	Layers        []Layer     `json:"layers"`
	Excluded      []Excluded  `json:"excluded"`
	SkippedClosed []TicketRef `json:"skipped_closed"`
	// Notes tell a person how something was done, when it matters.
	Notes []string `json:"notes,omitempty"`
}

// ResolveStackMode settles the stack mode: the one asked for, checked
// against the stacks API when native; when none was asked for, native if
// the stacks API answers, and otherwise a NeedsChoice error explaining
// the choice (never a silent fallback).
func ResolveStackMode(ctx context.Context, gh *ghapi.Client, asked string) (string, error) {
	switch asked {
	case ModeChain:
		return ModeChain, nil
	case "", ModeNative:
	default:
		return "", exitcode.New(exitcode.Usage, "--stack-mode %q: choose native or chain", asked)
	}
	_, err := gh.Stacks(ctx)
	if errors.Is(err, ghapi.ErrStacksDisabled) {
		return "", exitcode.New(exitcode.NeedsChoice,
			"stacked pull requests are not enabled for %s (GET /repos/%s/stacks answered 404): "+
				"enable them (https://docs.github.com/en/pull-requests/tutorials/roll-out-stacked-prs) for a stack map "+
				"on every PR and a one-click whole-stack merge, or re-run with --stack-mode chain for a plain --base chain "+
				"merged bottom-up by hand", gh.T.Repo(), gh.T.Repo())
	}
	if err != nil {
		return "", err
	}
	return ModeNative, nil
}

// ResolveBase settles the branch the stack merges into: asked when given;
// else the default branch when the checkout is on it; else a NeedsChoice
// error asking for --base.
func ResolveBase(ctx context.Context, env *Env, asked string) (string, error) {
	if asked != "" {
		return asked, nil
	}
	r, err := env.GH.Repository(ctx)
	if err != nil {
		return "", err
	}
	on, err := env.VCS.CurrentBranches(ctx)
	if err != nil {
		return "", err
	}
	if slices.Contains(on, r.DefaultBranch) {
		return r.DefaultBranch, nil
	}
	where := "no branch"
	if len(on) > 0 {
		where = "branch " + strings.Join(on, ", ")
	}
	choices := "--base " + r.DefaultBranch
	for _, b := range on {
		choices += " or --base " + b
	}
	return "", exitcode.New(exitcode.NeedsChoice,
		"the checkout is on %s, not the default branch %s: say which branch the stack merges into (%s)",
		where, r.DefaultBranch, choices)
}

// PinBase fetches origin and returns the full SHA of ref: origin's branch,
// or, for named prior work origin does not have, the local branch. A ref
// that resolves to nothing is refused.
func PinBase(ctx context.Context, v VCS, ref string, allowLocal bool) (string, error) {
	if err := v.Fetch(ctx); err != nil {
		return "", err
	}
	sha, ok, err := v.RemoteSHA(ctx, ref)
	if err != nil {
		return "", err
	}
	if ok {
		return sha, nil
	}
	if allowLocal {
		sha, ok, err = v.LocalSHA(ctx, ref)
		if err != nil {
			return "", err
		}
		if ok {
			return sha, nil
		}
		return "", exitcode.New(exitcode.Usage, "ref %q resolves to no commit on %s or locally: name an existing branch", ref, Remote)
	}
	return "", exitcode.New(exitcode.Usage, "ref %q resolves to no commit on %s: push it, or name an existing branch", ref, Remote)
}

// LoadTickets reads the spec's open sub-issues (in the spec's order) with
// their blockers: the dependencies API first, the body's "Blocked by"
// section only where the API returns nothing. Closed sub-issues are
// returned separately. Data that makes no sense (a sub-issue or blocker
// without a number, a ticket blocked by itself) is an invalid-input error
// naming every such ticket, never skipped.
func LoadTickets(ctx context.Context, gh *ghapi.Client, spec int, humanLabel string) (ghapi.Issue, []*Ticket, []TicketRef, error) {
	si, err := gh.Issue(ctx, spec)
	if ghapi.IsStatus(err, http.StatusNotFound) {
		return si, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("read spec issue #%d of %s: %w (check the number, or GH_REPO)", spec, gh.T.Repo(), err))
	}
	if err != nil {
		return si, nil, nil, fmt.Errorf("read spec issue #%d: %w", spec, err)
	}
	subs, err := gh.SubIssues(ctx, spec)
	if err != nil {
		return si, nil, nil, fmt.Errorf("read sub-issues of #%d: %w", spec, err)
	}
	var tickets []*Ticket
	var nonsense []string // data that makes no sense, reported together
	closed := []TicketRef{}
	open := map[int]bool{}
	listed := map[int]bool{}
	for i, s := range subs {
		switch {
		case s.Number <= 0:
			nonsense = append(nonsense, fmt.Sprintf("sub-issue %d of %d (%q) has no issue number", i+1, len(subs), s.Title))
			continue
		case s.Number == spec:
			nonsense = append(nonsense, fmt.Sprintf("sub-issue %d of %d is #%d, the spec itself", i+1, len(subs), s.Number))
			continue
		case s.PullRequest != nil:
			nonsense = append(nonsense, fmt.Sprintf("sub-issue %d of %d, #%d %q, is a pull request, not an issue", i+1, len(subs), s.Number, s.Title))
			continue
		case listed[s.Number]:
			nonsense = append(nonsense, fmt.Sprintf("sub-issue %d of %d, #%d %q, is listed again", i+1, len(subs), s.Number, s.Title))
			continue
		}
		listed[s.Number] = true
		if s.State != "open" {
			closed = append(closed, TicketRef{s.Number, s.Title})
			continue
		}
		open[s.Number] = true
		tickets = append(tickets, &Ticket{Number: s.Number, Title: s.Title, Body: s.Body, Position: i, Human: s.HasLabel(humanLabel), BlockedBy: []int{}})
	}
	for _, t := range tickets {
		deps, err := gh.BlockedBy(ctx, t.Number)
		if ghapi.IsStatus(err, http.StatusNotFound) {
			// A host without the dependencies API: the prose decides.
			deps, err = nil, nil
		}
		if err != nil {
			return si, nil, nil, fmt.Errorf("read blockers of #%d: %w", t.Number, err)
		}
		var nums []int
		t.Source = EdgesAPI
		for _, d := range deps {
			switch {
			case d.Number <= 0:
				nonsense = append(nonsense, fmt.Sprintf("ticket #%d %q is blocked by an issue without a number (%q)", t.Number, t.Title, d.Title))
			case d.State == "open":
				nums = append(nums, d.Number)
			}
		}
		from := "GitHub's issue dependencies"
		if len(deps) == 0 {
			t.Source = EdgesProse
			from = `its "Blocked by" section`
			nums = ProseBlockers(t.Body)
			if len(nums) == 0 {
				t.Source = EdgesNone
			}
		}
		for _, n := range nums {
			switch {
			case n == t.Number:
				nonsense = append(nonsense, fmt.Sprintf("ticket #%d %q is blocked by itself (%s)", t.Number, t.Title, from))
			case open[n]:
				if !slices.Contains(t.BlockedBy, n) {
					t.BlockedBy = append(t.BlockedBy, n)
				}
			case slices.ContainsFunc(closed, func(c TicketRef) bool { return c.Number == n }):
				// done: no longer blocks
			default:
				t.External = append(t.External, n)
			}
		}
		slices.Sort(t.BlockedBy)
	}
	if len(nonsense) > 0 {
		return si, nil, nil, exitcode.New(exitcode.Invalid, "spec #%d: GitHub's data does not make sense (fix it on GitHub and re-run):\n  %s",
			spec, strings.Join(nonsense, "\n  "))
	}
	return si, tickets, closed, nil
}

// MakePlan reads the spec and its tickets and settles mode, base and the
// pinned base SHA. It changes nothing anywhere but the local remote-
// tracking refs (git fetch).
func MakePlan(ctx context.Context, env *Env, req PlanRequest) (*Plan, error) {
	if req.HumanLabel == "" {
		req.HumanLabel = DefaultHumanLabel
	}
	mode, err := ResolveStackMode(ctx, env.GH, req.StackMode)
	if err != nil {
		return nil, err
	}
	base, err := ResolveBase(ctx, env, req.Base)
	if err != nil {
		return nil, err
	}
	start := req.StartRef
	if start == "" {
		start = base
	}
	sha, err := PinBase(ctx, env.VCS, start, req.StartRef != "")
	if err != nil {
		return nil, err
	}
	spec, tickets, closed, err := LoadTickets(ctx, env.GH, req.Spec, req.HumanLabel)
	if err != nil {
		return nil, err
	}
	g, err := BuildGraph(tickets)
	if err != nil {
		return nil, err
	}
	p := &Plan{Spec: req.Spec, Title: spec.Title, Repo: env.GH.T.Repo(), StackMode: mode, Base: base, StartRef: start,
		BaseSHA: sha, HumanLabel: req.HumanLabel, Layers: g.Layers, Excluded: g.Excluded, SkippedClosed: closed}
	if n, ok := env.VCS.(interface{ Note() string }); ok && n.Note() != "" {
		p.Notes = append(p.Notes, n.Note())
	}
	var missing []string
	for _, l := range g.Layers {
		for _, t := range l.Tickets {
			if !ParseRecipe(t.Body).HasPerChange {
				missing = append(missing, fmt.Sprintf("#%d %q", t.Number, t.Title))
			}
		}
	}
	if len(missing) > 0 {
		return p, exitcode.New(exitcode.Invalid,
			"tickets without a \"## Validation\" section holding a \"### Run per change\" subsection: %s; add one to each (the commands every change must pass) and re-run",
			strings.Join(missing, ", "))
	}
	return p, nil
}

// WriteText renders the plan for a person.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "spec #%d %q in %s\n", p.Spec, p.Title, p.Repo)
	fmt.Fprintf(&b, "stack mode: %s\n", p.StackMode)
	fmt.Fprintf(&b, "base: %s; tickets are cut from %s at %s\n", p.Base, p.StartRef, p.BaseSHA)
	n := len(p.Layers)
	for _, l := range p.Layers {
		fmt.Fprintf(&b, "Layer %d of %d\n", l.Layer, n)
		for _, t := range l.Tickets {
			fmt.Fprintf(&b, "  #%d %s", t.Number, t.Title)
			if len(t.BlockedBy) > 0 {
				fmt.Fprintf(&b, " (blocked by %s; from %s)", refs(t.BlockedBy), t.Source)
			}
			if len(t.External) > 0 {
				fmt.Fprintf(&b, " (also blocked by %s, outside the spec)", refs(t.External))
			}
			b.WriteString("\n")
		}
	}
	if n == 0 {
		b.WriteString("no ticket to build\n")
	}
	if len(p.Excluded) > 0 {
		fmt.Fprintf(&b, "excluded (label %q marks a ticket that needs a human):\n", p.HumanLabel)
		for _, e := range p.Excluded {
			fmt.Fprintf(&b, "  #%d %s: %s\n", e.Number, e.Title, e.Reason)
		}
	}
	if len(p.SkippedClosed) > 0 {
		var nums []int
		for _, c := range p.SkippedClosed {
			nums = append(nums, c.Number)
		}
		fmt.Fprintf(&b, "closed, skipped: %s\n", refs(nums))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refs(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(parts, ", ")
}
