package stack

import (
	"github.com/specstack/specstack/internal/ledger"

	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/stack/ghapi"
)

// LinkRequest asks to link branches (or pull requests) into a stack.
type LinkRequest struct {
	Items     []string // bottom to top: branch names, PR numbers ("12", "#12") or PR URLs
	Base      string   // base of the bottom PR; "" for the default branch
	StackMode string   // native, chain, or "" to use native when enabled
	// LedgerDir is gh-specstack's ledger directory, whose lock Link holds
	// while it runs: two links would race to push and to open the same
	// pull requests.
	LedgerDir string
}

// LinkLayer is one layer of a linked stack.
type LinkLayer struct {
	Branch   string `json:"branch"`
	PR       int    `json:"pr"`
	URL      string `json:"url"`
	Base     string `json:"base"`
	Push     string `json:"push"`      // pushed, already-published, not-local (someone else's branch, on origin)
	PRAction string `json:"pr_action"` // created, reused, rebased (its base was fixed)
}

// LinkResult is what `gh specstack link` reports.
type LinkResult struct {
	Repo        string      `json:"repo"`
	StackMode   string      `json:"stack_mode"`
	Base        string      `json:"base"`
	Layers      []LinkLayer `json:"layers"`
	Stack       int         `json:"stack,omitempty"` // native stack number, 0 for none
	StackAction string      `json:"stack_action"`    // created, extended, unchanged, none
	Changed     bool        `json:"changed"`
	// Notes explain the mode and what was not done, for a person.
	Notes []string `json:"notes"`
	// MergeInstructions are the chain-mode merge steps.
	MergeInstructions []string `json:"merge_instructions,omitempty"`
}

var pullURL = lazyregexp.New(`^https?://[^/]+/([^/]+)/([^/]+)/pull/(\d+)/?$`)

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
	l, err := ledger.Acquire(req.LedgerDir)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	k := &linker{env: env, gh: env.GH, progress: progress,
		res: &LinkResult{Repo: env.GH.T.Repo(), StackAction: "none", Notes: []string{}}}
	// Reads and checks: nothing changes until all of them pass.
	if err := k.settleMode(ctx, req.StackMode); err != nil {
		return nil, err
	}
	if err := k.settleBase(ctx, req.Base); err != nil {
		return nil, err
	}
	if err := k.resolveItems(ctx, req.Items); err != nil {
		return nil, err
	}
	if err := k.checkLayers(ctx); err != nil {
		return nil, err
	}
	var plan stackPlan
	if k.res.StackMode == ModeNative {
		var err error
		if plan, err = planStack(k.stacks, k.knownPulls()); err != nil {
			return nil, err
		}
	}
	// Changes.
	if err := k.publish(ctx); err != nil {
		return k.res, err
	}
	if err := k.pullRequests(ctx); err != nil {
		return k.res, err
	}
	if k.res.StackMode == ModeChain {
		k.res.MergeInstructions = chainInstructions(k.res.Layers)
		return k.res, nil
	}
	return k.res, plan.apply(ctx, k.gh, k.knownPulls(), k.res, progress)
}

// layer is one listed branch while Link works on it.
type layer struct {
	branch   string
	pr       *ghapi.PullRequest // its open pull request, once known
	localSHA string             // "" when there is no local branch
	remote   string             // origin's SHA, "" when origin lacks it
}

type linker struct {
	env      *Env
	gh       *ghapi.Client
	progress io.Writer
	res      *LinkResult
	stacks   []ghapi.Stack
	layers   []*layer
}

// settleMode picks native when the stacks API answers and, unless native
// was asked for, the chain otherwise, saying so.
func (k *linker) settleMode(ctx context.Context, asked string) error {
	switch asked {
	case ModeChain:
		k.res.StackMode = ModeChain
		return nil
	case "", ModeNative:
	default:
		return exitcode.New(exitcode.Usage, "--stack-mode %q: choose native or chain", asked)
	}
	var err error
	k.stacks, err = k.gh.Stacks(ctx)
	switch {
	case errors.Is(err, ghapi.ErrStacksDisabled) && asked == "":
		k.res.StackMode = ModeChain
		k.res.Notes = append(k.res.Notes, fmt.Sprintf("stacked pull requests are not enabled for %s: built a plain --base chain (enable them for a native stack map and a one-click whole-stack merge: https://docs.github.com/en/pull-requests/tutorials/roll-out-stacked-prs)", k.res.Repo))
	case errors.Is(err, ghapi.ErrStacksDisabled):
		return exitcode.New(exitcode.NeedsChoice, "--stack-mode native: stacked pull requests are not enabled for %s; enable them or use --stack-mode chain", k.res.Repo)
	case err != nil:
		return err
	default:
		k.res.StackMode = ModeNative
	}
	return nil
}

// settleBase takes --base, else the default branch, and checks that
// origin has it (a pull request cannot be based on anything else).
func (k *linker) settleBase(ctx context.Context, asked string) error {
	k.res.Base = asked
	if asked == "" {
		r, err := k.gh.Repository(ctx)
		if err != nil {
			return err
		}
		k.res.Base = r.DefaultBranch
	}
	_, ok, err := k.env.VCS.LiveRemoteSHA(ctx, k.res.Base)
	if err != nil {
		return err
	}
	if !ok {
		return exitcode.New(exitcode.Usage, "base branch %q is not on %s: push it first or name another with --base; nothing was changed", k.res.Base, Remote)
	}
	return nil
}

// resolveItems turns every item into a branch and, for a pull request
// named by number or URL, that pull request.
func (k *linker) resolveItems(ctx context.Context, items []string) error {
	seen := map[string]bool{}
	for _, item := range items {
		l := &layer{}
		n, err := itemPR(item, k.gh.T.Owner, k.gh.T.Name)
		if err != nil {
			return err
		}
		if n > 0 {
			p, err := k.gh.Pull(ctx, n)
			if err != nil {
				return fmt.Errorf("read pull request #%d: %w", n, err)
			}
			if p.State != "open" {
				return exitcode.New(exitcode.Usage, "pull request #%d is %s: a stack is made of open pull requests", n, p.State)
			}
			l.branch, l.pr = p.Head.Ref, &p
		} else {
			l.branch = item
		}
		if l.branch == k.res.Base {
			return exitcode.New(exitcode.Usage, "%s is the stack's base; list only the branches stacked on it", l.branch)
		}
		if seen[l.branch] {
			return exitcode.New(exitcode.Usage, "%s is listed twice", l.branch)
		}
		seen[l.branch] = true
		k.layers = append(k.layers, l)
	}
	return nil
}

// checkLayers reads every layer's local and remote heads (refusing, by
// publish-once, a branch origin has at another commit) and its open pull
// request.
func (k *linker) checkLayers(ctx context.Context) error {
	v := k.env.VCS
	for _, l := range k.layers {
		sha, ok, err := v.LocalSHA(ctx, l.branch)
		if err != nil {
			return err
		}
		remote, onRemote, err := v.LiveRemoteSHA(ctx, l.branch)
		if err != nil {
			return err
		}
		switch {
		case !ok && !onRemote:
			what := "branch"
			if v.Kind() == "jj" {
				what = "bookmark"
			}
			return exitcode.New(exitcode.Usage, "%s %q exists neither in %s nor on %s: create it first", what, l.branch, v.Root(), Remote)
		case ok && onRemote && remote != sha:
			return exitcode.Wrap(exitcode.Failure, fmt.Errorf(
				"%s: branch %w (%s on %s, %s here); publish-once never overwrites a published branch: inspect both and decide by hand; nothing was changed",
				l.branch, gitx.ErrRemoteMoved, short(remote), Remote, short(sha)))
		}
		l.localSHA = sha
		if onRemote {
			l.remote = remote
		}
		if l.pr != nil || !onRemote {
			continue // a branch origin lacks has no pull request yet
		}
		open, err := k.gh.Pulls(ctx, ghapi.PullFilter{State: "open", Head: l.branch})
		if err != nil {
			return err
		}
		if len(open) > 1 {
			return exitcode.New(exitcode.NeedsChoice, "%s has %d open pull requests (%s): name the one to stack by number", l.branch, len(open), pullRefs(open))
		}
		if len(open) == 1 {
			l.pr = &open[0]
		}
	}
	return nil
}

// knownPulls lists the layers' pull request numbers, 0 for none yet.
func (k *linker) knownPulls() []int {
	nums := make([]int, len(k.layers))
	for i, l := range k.layers {
		if l.pr != nil {
			nums[i] = l.pr.Number
		}
	}
	return nums
}

// publish pushes every local branch origin lacks.
func (k *linker) publish(ctx context.Context) error {
	for i, l := range k.layers {
		ll := LinkLayer{Branch: l.branch, Base: k.res.Base}
		if i > 0 {
			ll.Base = k.layers[i-1].branch
		}
		switch {
		case l.localSHA == "":
			ll.Push = "not-local"
		case l.remote != "":
			ll.Push = string(gitx.AlreadyPublished)
		default:
			r, err := k.env.VCS.Publish(ctx, l.branch)
			if err != nil {
				return err
			}
			ll.Push = string(r)
			if r == gitx.Pushed {
				k.res.Changed = true
				fmt.Fprintf(k.progress, "pushed %s to %s\n", l.branch, Remote)
			}
		}
		k.res.Layers = append(k.res.Layers, ll)
	}
	return nil
}

// pullRequests opens a draft for each layer without one and fixes bases.
func (k *linker) pullRequests(ctx context.Context) error {
	for i, l := range k.layers {
		ll := &k.res.Layers[i]
		switch {
		case l.pr == nil:
			title := l.branch
			if l.localSHA != "" {
				if s, err := k.env.VCS.Subject(ctx, l.localSHA); err == nil && strings.TrimSpace(s) != "" {
					title = s
				}
			}
			p, err := k.gh.CreatePull(ctx, ghapi.NewPull{Title: title, Head: l.branch, Base: ll.Base, Draft: true, Body: linkBody(i, len(k.layers), ll.Base)})
			if err != nil {
				return fmt.Errorf("open a draft pull request for %s: %w", l.branch, err)
			}
			l.pr = &p
			ll.PRAction = "created"
			k.res.Changed = true
			fmt.Fprintf(k.progress, "opened draft #%d %s → %s\n", p.Number, l.branch, ll.Base)
		case l.pr.Base.Ref != ll.Base:
			base, was := ll.Base, l.pr.Base.Ref
			p, err := k.gh.UpdatePull(ctx, l.pr.Number, ghapi.PullUpdate{Base: &base})
			if err != nil {
				return fmt.Errorf("set the base of #%d to %s: %w", l.pr.Number, base, err)
			}
			fmt.Fprintf(k.progress, "rebased #%d onto %s (was %s)\n", p.Number, base, was)
			l.pr = &p
			ll.PRAction = "rebased"
			k.res.Changed = true
		default:
			ll.PRAction = "reused"
		}
		ll.PR, ll.URL = l.pr.Number, l.pr.HTMLURL
	}
	return nil
}
