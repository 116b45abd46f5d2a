package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// LinkRequest asks to link branches (or pull requests) into a stack.
type LinkRequest struct {
	Items     []string // bottom to top: branch names, PR numbers ("12", "#12") or PR URLs
	Base      string   // base of the bottom PR; "" for the default branch
	StackMode string   // native, chain, or "" to use native when enabled
}

// LinkLayer is one layer of a linked stack.
type LinkLayer struct {
	Branch   string `json:"branch"`
	PR       int    `json:"pr"`
	URL      string `json:"url"`
	Base     string `json:"base"`
	Push     string `json:"push"`     // pushed, already-published, not-local (someone else's branch, on origin)
	PRAction string `json:"prAction"` // created, reused, rebased (its base was fixed)
}

// LinkResult is what `gh specstack link` reports.
type LinkResult struct {
	Repo        string      `json:"repo"`
	StackMode   string      `json:"stackMode"`
	Base        string      `json:"base"`
	Layers      []LinkLayer `json:"layers"`
	Stack       int         `json:"stack,omitempty"` // native stack number, 0 for none
	StackAction string      `json:"stackAction"`     // created, extended, unchanged, none
	Changed     bool        `json:"changed"`
	// Notes explain the mode and what was not done, for a person.
	Notes []string `json:"notes"`
	// MergeInstructions are the chain-mode merge steps.
	MergeInstructions []string `json:"mergeInstructions,omitempty"`
}

var pullURL = regexp.MustCompile(`^https?://[^/]+/([^/]+)/([^/]+)/pull/(\d+)/?$`)

// itemPR returns the PR number an item names, or 0 for a branch name.
func itemPR(item, owner, name string) (int, error) {
	s := strings.TrimPrefix(item, "#")
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n, nil
	}
	if m := pullURL.FindStringSubmatch(item); m != nil {
		if !strings.EqualFold(m[1], owner) || !strings.EqualFold(m[2], name) {
			return 0, exitcode.New(exitcode.Usage, "%s is a pull request of %s/%s, not of %s/%s", item, m[1], m[2], owner, name)
		}
		n, _ := strconv.Atoi(m[3])
		return n, nil
	}
	if _, err := url.ParseRequestURI(item); err == nil && strings.Contains(item, "://") {
		return 0, exitcode.New(exitcode.Usage, "%s is not a pull request URL (want https://HOST/OWNER/REPO/pull/N)", item)
	}
	return 0, nil
}

// Link makes the listed branches a stack of draft pull requests, bottom to
// top: it publishes (once, never forced) each branch origin lacks, reuses
// each branch's open pull request or opens a draft one based on the branch
// below (req.Base, default the default branch, for the bottom), fixes a
// pull request whose base is wrong, and registers the native stack
// (creating it from two layers, extending an existing one on top). It
// never marks a pull request ready. Every check that can refuse runs
// before anything changes.
func Link(ctx context.Context, env *Env, req LinkRequest, progress io.Writer) (*LinkResult, error) {
	if len(req.Items) == 0 {
		return nil, exitcode.New(exitcode.Usage, "link: name the branches (or pull requests) of the stack, bottom first")
	}
	gh := env.GH
	res := &LinkResult{Repo: gh.T.Repo(), StackAction: "none", Notes: []string{}}

	// The mode: native when the stacks API answers, else the chain, said.
	var stacks []ghapi.Stack
	switch req.StackMode {
	case ModeChain:
		res.StackMode = ModeChain
	case "", ModeNative:
		var err error
		stacks, err = gh.Stacks(ctx)
		switch {
		case errors.Is(err, ghapi.ErrStacksDisabled) && req.StackMode == "":
			res.StackMode = ModeChain
			res.Notes = append(res.Notes, fmt.Sprintf("stacked pull requests are not enabled for %s: built a plain --base chain (enable them for a native stack map and a one-click whole-stack merge: https://docs.github.com/en/pull-requests/tutorials/roll-out-stacked-prs)", res.Repo))
		case errors.Is(err, ghapi.ErrStacksDisabled):
			return nil, exitcode.New(exitcode.NeedsChoice, "--stack-mode native: stacked pull requests are not enabled for %s; enable them or use --stack-mode chain", res.Repo)
		case err != nil:
			return nil, err
		default:
			res.StackMode = ModeNative
		}
	default:
		return nil, exitcode.New(exitcode.Usage, "--stack-mode %q: choose native or chain", req.StackMode)
	}

	res.Base = req.Base
	if res.Base == "" {
		r, err := gh.Repository(ctx)
		if err != nil {
			return nil, err
		}
		res.Base = r.DefaultBranch
	}

	// Resolve every item to a branch and, when given, its PR.
	type layer struct {
		branch   string
		pr       *ghapi.PullRequest
		localSHA string
		remote   string // live origin SHA, "" when absent
	}
	var layers []*layer
	seen := map[string]bool{}
	for _, item := range req.Items {
		l := &layer{}
		n, err := itemPR(item, gh.T.Owner, gh.T.Name)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			p, err := gh.Pull(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("read pull request #%d: %w", n, err)
			}
			if p.State != "open" {
				return nil, exitcode.New(exitcode.Usage, "pull request #%d is %s: a stack is made of open pull requests", n, p.State)
			}
			l.branch, l.pr = p.Head.Ref, &p
		} else {
			l.branch = item
		}
		if l.branch == res.Base {
			return nil, exitcode.New(exitcode.Usage, "%s is the stack's base; list only the branches stacked on it", l.branch)
		}
		if seen[l.branch] {
			return nil, exitcode.New(exitcode.Usage, "%s is listed twice", l.branch)
		}
		seen[l.branch] = true
		layers = append(layers, l)
	}

	// Read-only checks, for every layer before anything changes:
	// publish-once, each branch's open pull request, the stack's shape.
	for _, l := range layers {
		sha, ok, err := env.VCS.LocalSHA(ctx, l.branch)
		if err != nil {
			return nil, err
		}
		remote, onRemote, err := env.VCS.LiveRemoteSHA(ctx, l.branch)
		if err != nil {
			return nil, err
		}
		if onRemote {
			l.remote = remote
		}
		switch {
		case !ok && !onRemote:
			what := "branch"
			if env.VCS.Kind() == "jj" {
				what = "bookmark"
			}
			return nil, exitcode.New(exitcode.Usage, "%s %q exists neither in %s nor on %s: create it first", what, l.branch, env.VCS.Root(), Remote)
		case ok && onRemote && remote != sha:
			return nil, exitcode.Wrap(exitcode.Failure, fmt.Errorf(
				"%s: branch %w (%s on %s, %s here); publish-once never overwrites a published branch: inspect both and decide by hand; nothing was changed",
				l.branch, gitx.ErrRemoteMoved, short(remote), Remote, short(sha)))
		}
		l.localSHA = sha
		if l.pr == nil && onRemote {
			open, err := gh.Pulls(ctx, ghapi.PullFilter{State: "open", Head: l.branch})
			if err != nil {
				return nil, err
			}
			if len(open) > 1 {
				return nil, exitcode.New(exitcode.NeedsChoice, "%s has %d open pull requests (%s): name the one to stack by number", l.branch, len(open), pullRefs(open))
			}
			if len(open) == 1 {
				l.pr = &open[0]
			}
		}
	}
	var plan stackPlan
	if res.StackMode == ModeNative {
		known := make([]int, len(layers))
		for i, l := range layers {
			if l.pr != nil {
				known[i] = l.pr.Number
			}
		}
		var err error
		if plan, err = planStack(stacks, known); err != nil {
			return nil, err
		}
	}

	// Pushes.
	if n, ok := env.VCS.(interface{ Note() string }); ok && n.Note() != "" && slices.ContainsFunc(layers, func(l *layer) bool { return l.localSHA != "" && l.remote == "" }) {
		res.Notes = append(res.Notes, n.Note())
	}
	for i, l := range layers {
		ll := LinkLayer{Branch: l.branch, Base: res.Base}
		if i > 0 {
			ll.Base = layers[i-1].branch
		}
		switch {
		case l.localSHA == "":
			ll.Push = "not-local"
		case l.remote != "":
			ll.Push = string(gitx.AlreadyPublished)
		default:
			r, err := env.VCS.Publish(ctx, l.branch)
			if err != nil {
				return res, err
			}
			ll.Push = string(r)
			if r == gitx.Pushed {
				res.Changed = true
				fmt.Fprintf(progress, "pushed %s to %s\n", l.branch, Remote)
			}
		}
		res.Layers = append(res.Layers, ll)
	}

	// Pull requests, bottom up.
	for i, l := range layers {
		ll := &res.Layers[i]
		switch {
		case l.pr == nil:
			title := l.branch
			if l.localSHA != "" {
				if s, err := env.VCS.Subject(ctx, l.localSHA); err == nil && strings.TrimSpace(s) != "" {
					title = s
				}
			}
			p, err := gh.CreatePull(ctx, ghapi.NewPull{Title: title, Head: l.branch, Base: ll.Base, Draft: true, Body: linkBody(i, len(layers), ll.Base)})
			if err != nil {
				return res, fmt.Errorf("open a draft pull request for %s: %w", l.branch, err)
			}
			l.pr = &p
			ll.PRAction = "created"
			res.Changed = true
			fmt.Fprintf(progress, "opened draft #%d %s → %s\n", p.Number, l.branch, ll.Base)
		case l.pr.Base.Ref != ll.Base:
			base, was := ll.Base, l.pr.Base.Ref
			p, err := gh.UpdatePull(ctx, l.pr.Number, ghapi.PullUpdate{Base: &base})
			if err != nil {
				return res, fmt.Errorf("set the base of #%d to %s: %w", l.pr.Number, base, err)
			}
			fmt.Fprintf(progress, "rebased #%d onto %s (was %s)\n", p.Number, base, was)
			l.pr = &p
			ll.PRAction = "rebased"
			res.Changed = true
		default:
			ll.PRAction = "reused"
		}
		ll.PR, ll.URL = l.pr.Number, l.pr.HTMLURL
	}

	if res.StackMode == ModeChain {
		res.MergeInstructions = chainInstructions(res.Layers)
		return res, nil
	}
	nums := make([]int, len(layers))
	for i, l := range layers {
		nums[i] = l.pr.Number
	}
	return res, plan.apply(ctx, gh, nums, res, progress)
}

func linkBody(i, n int, base string) string {
	return fmt.Sprintf("Layer %d of %d of a stack, based on `%s`. Linked by gh-specstack; stays draft until the stack is ready.\n", i+1, n, base)
}

func chainInstructions(layers []LinkLayer) []string {
	res := []string{"Merge bottom-up, one pull request at a time, with a merge commit (not squash or rebase, which rewrite the commits and give every pull request above a phantom diff); delete each head branch right after its merge so GitHub retargets the next pull request:"}
	for i, l := range layers {
		res = append(res, fmt.Sprintf("%d. #%d %s → %s, then delete %s", i+1, l.PR, l.Branch, l.Base, l.Branch))
	}
	return res
}

func pullRefs(ps []ghapi.PullRequest) string {
	nums := make([]int, len(ps))
	for i, p := range ps {
		nums[i] = p.Number
	}
	return numRefs(nums)
}

func numRefs(nums []int) string { return refs(nums) }

// WriteText renders the result for a person.
func (r *LinkResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s stack on %s\n", r.Repo, r.StackMode, r.Base)
	for i := len(r.Layers) - 1; i >= 0; i-- {
		l := r.Layers[i]
		fmt.Fprintf(&b, "  %d. #%d %s → %s (%s, %s) %s\n", i+1, l.PR, l.Branch, l.Base, l.PRAction, l.Push, l.URL)
	}
	switch r.StackAction {
	case "created":
		fmt.Fprintf(&b, "stack %d registered\n", r.Stack)
	case "extended":
		fmt.Fprintf(&b, "stack %d extended\n", r.Stack)
	case "unchanged":
		fmt.Fprintf(&b, "stack %d unchanged\n", r.Stack)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, m := range r.MergeInstructions {
		fmt.Fprintf(&b, "%s\n", m)
	}
	if !r.Changed {
		b.WriteString("nothing to change: the stack is already linked\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
