package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/stack/ghapi"
)

// errStopped ends a ticket that a halt elsewhere stopped before it
// reached GitHub.
var errStopped = errors.New("stopped: the run halted")

func (d *driver) workspace(n int, base string) engine.Workspace {
	t := d.doc.Header.Tickets[d.index(n)]
	return engine.Workspace{Name: TicketBranch(n), Path: d.backend.Path(TicketBranch(n)), Base: []string{base},
		Message: fmt.Sprintf("#%d: %s", n, t.Title)}
}

func (d *driver) index(n int) int {
	for i, t := range d.doc.Header.Tickets {
		if t.Number == n {
			return i
		}
	}
	return -1
}

// build takes ticket n from wherever the ledger left it to published (or
// subsumed, or a halt). A ticket a killed or halted run left before its
// publish starts over in a fresh worktree; one left in the publish lane
// finishes its publish.
func (d *driver) build(ctx context.Context, n int) error {
	t, tip, tipBranch := d.ticket(n)
	if t.InLane {
		return d.publish(ctx, n, true)
	}
	if err := d.budget(n, fmt.Sprintf("ticket #%d's worker", n)); err != nil {
		return err
	}
	// A worker a killed run left still running in the old worktree is
	// stopped before that worktree goes.
	if engine.StopOrphan(filepath.Join(d.ticketDir(n), "worker.pid")) {
		d.logf("#%d: stopped the worker a stopped run left running", n)
	}
	if t.Base != "" {
		// An earlier attempt's work is kept where the backend can
		// before its workspace goes.
		if kept, err := d.backend.Keep(ctx, d.workspace(n, t.Base)); err != nil {
			d.logf("#%d: %v", n, err)
		} else if kept != "" {
			k := KeptWork{Commit: kept, Branch: d.backend.KeptBranch(TicketBranch(n), kept)}
			d.logf("#%d: the earlier attempt's work stays in %s", n, k.where())
		}
	}
	ws := d.workspace(n, tip)
	if err := d.backend.Release(ctx, ws); err != nil {
		return err
	}
	ws, err := d.backend.Provision(ctx, ws)
	if err != nil {
		return err
	}
	if err := d.record(at(n, engine.Cut{Base: tip, BaseBranch: tipBranch})); err != nil {
		return err
	}
	d.logf("#%d: cut %s from %s (%s)", n, ws.Name, tipBranch, short(tip))
	dir := d.ticketDir(n)
	brief, report := filepath.Join(dir, "brief.md"), filepath.Join(dir, "report.md")
	os.Remove(report)
	if err := d.writeBrief(brief, n); err != nil {
		return err
	}
	job := d.workerJob(n, ws.Path, engine.RoleImplementer, brief, report, "")
	var res engine.Result
	if d.executor != nil {
		res = d.runRemote(ctx, n, tip, t.Remote, job)
	} else {
		res = engine.RunJob(ctx, job)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := d.worked(n, engine.RoleImplementer, 0, res); err != nil {
		return err
	}
	if res.ExitCode != 0 || res.Err != nil && res.Agent != nil {
		return d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the worker exited %d%s (log %s)", n, res.ExitCode, agentWhy(res), d.workerLog(n)))
	}
	if dec := decisions(report); dec != "" {
		if err := d.record(at(n, engine.DecisionsNoted{Text: dec})); err != nil {
			return err
		}
	}
	// Exit 0 is not enough: no status is not done.
	st, err := engine.ReadReport(report)
	if err != nil {
		return d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: the worker exited 0 with %v: a worker that reports no status did not finish (log %s)", n, err, d.workerLog(n)))
	}
	if st == engine.StatusBlocked || st == engine.StatusNeedsContext {
		return d.halt(n, engine.StateNeedsDecision, fmt.Sprintf("ticket #%d: the worker reported %s (report %s)", n, st, report))
	}
	p, err := d.backend.Collect(ctx, ws)
	var off *engine.OffBaseError
	if errors.As(err, &off) {
		return d.halt(n, engine.StateFailed, fmt.Sprintf("ticket #%d: %v", n, off))
	}
	if err != nil {
		return err
	}
	if err := d.record(at(n, engine.TicketCollected{SHA: p.Commit})); err != nil {
		return err
	}
	engine.CrashPoint("run-collected-" + itoa(n))
	if !p.Empty() {
		if err := d.descends(ctx, n, tip, tipBranch, p.Commit); err != nil {
			return err
		}
	}
	if p.Empty() {
		d.logf("#%d: the branch adds nothing to %s: subsumed, no pull request", n, short(tip))
		if err := d.record(at(n, engine.Subsumed{})); err != nil {
			return err
		}
		return d.backend.Release(ctx, ws)
	}
	unmet, err := d.validate(ctx, n, ws.Path, p.Commit, "validate", nil)
	if err != nil {
		return err
	}
	if d.doc.Header.Reviewer != "" {
		if unmet, err = d.gate(ctx, n, ws, unmet); err != nil {
			return err
		}
	}
	if len(unmet) > 0 {
		return d.halt(n, engine.StateUnmet, fmt.Sprintf("ticket #%d: red at %s and green at the base: %s", n, short(d.tipOf(n)), strings.Join(unmet, ", ")))
	}
	return d.publish(ctx, n, false)
}

// runRemote runs job j of ticket n (0: the run's whole-stack fixer) on
// the run's executor from commit tip, whose files j.Dir holds; prior is
// the ticket's newest run, taken up (not dispatched again) when it is an
// implementer's that grew from the same tip, else cancelled if live.
func (d *driver) runRemote(ctx context.Context, n int, tip string, prior *engine.RemoteRun, j engine.Job) engine.Result {
	h := d.doc.Header
	label := "#" + itoa(n)
	if n == 0 {
		label = "whole stack"
	}
	rj := engine.RemoteJob{Executor: d.executor, GitDir: d.git.Dir, Dir: j.Dir, Label: label, Logf: d.logf, Base: tip,
		Job: fmt.Sprintf("spec%d-%s/%d-%d", h.Spec, h.Started.UTC().Format("20060102T150405"), n, time.Now().UnixMilli()),
		Record: func(p engine.Payload) error {
			return d.record(engine.Event{Task: n, Role: j.Role, Payload: p})
		}}
	if jw, ok := d.backend.(*jjWorkspaces); ok {
		rj.Take = jw.b.Taker(engine.Workspace{Path: j.Dir}, d.git.Dir)
	}
	if prior != nil && !prior.Settled && (prior.Base != tip || j.Role != engine.RoleImplementer) {
		// A run of an attempt given up (a fixer's, killed with its gate
		// round, or a ticket cut again elsewhere): nothing takes it.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := d.executor.Cancel(cctx, *prior); err != nil {
			d.logf("%s: cancel the earlier attempt's run %s: %v", label, prior.URL, err)
		}
		// Its result, a worker's work, stays on origin, named.
		if kept, err := d.executor.Abandon(cctx, d.git.Dir, *prior); err != nil {
			d.logf("%s: %v (delete its specstack/ base branch by hand)", label, err)
		} else if kept != "" {
			d.logf("%s: the earlier attempt's result is kept on %s as branch %s", label, Remote, kept)
		}
		prior = nil
	}
	if prior != nil && !prior.Settled && prior.Base == tip {
		evs := []engine.Event{}
		for _, p := range prior.TakeUp() {
			evs = append(evs, engine.Event{Task: n, Role: j.Role, Payload: p})
		}
		if err := d.record(evs...); err != nil {
			return engine.Result{ExitCode: -1, Err: err}
		}
		rj.Prior = prior
	}
	return rj.Run(ctx, j)
}

// descends halts ticket n unless its branch at sha descends from its cut
// point base (on baseBranch), decided by SHA: a worker that rewound its
// worktree (git reset to an older commit, or to another branch) would
// publish a branch lacking the work below it.
func (d *driver) descends(ctx context.Context, n int, base, baseBranch, sha string) error {
	ok, err := d.git.IsAncestor(ctx, base, sha)
	if err != nil {
		return fmt.Errorf("ticket #%d: check that %s descends from %s: %w", n, short(sha), short(base), err)
	}
	if ok {
		return nil
	}
	return d.halt(n, engine.StateFailed, fmt.Sprintf(
		"ticket #%d: the worker rewound %s: its branch at %s does not descend from its cut point %s (%s); nothing was pushed. See the worker's log %s, then gh specstack resume to cut it again",
		n, TicketBranch(n), short(sha), short(base), baseBranch, d.workerLog(n)))
}

// tipOf is ticket n's current commit.
func (d *driver) tipOf(n int) string {
	t, _, _ := d.ticket(n)
	return t.SHA
}

func (d *driver) workerLog(n int) string { return filepath.Join(d.ticketDir(n), "worker.log") }

// worked records that a worker job of ticket n (0: the run's) ended,
// with what its agent spent, and says what the agent layer did.
func (d *driver) worked(n int, role string, round int, res engine.Result) error {
	for _, note := range res.Notes {
		d.logf("#%d %s: %s", n, role, note)
	}
	return d.record(engine.Event{Task: n, Role: role, Payload: engine.Worked{Round: round, ExitCode: res.ExitCode, Agent: res.Agent}})
}

// agentWhy is an agent's failure, for a halt message ("" for a command).
func agentWhy(res engine.Result) string {
	if res.Agent == nil || res.Err == nil {
		return ""
	}
	return fmt.Sprintf(" (%v)", res.Err)
}

// workerJob is ticket n's worker job in role (implementer or fixer).
func (d *driver) workerJob(n int, dir, role, brief, report, findings string) engine.Job {
	return engine.BuildJob(engine.JobRequest{Role: role, Task: itoa(n), Dir: dir, Command: d.doc.Header.Worker,
		Brief: brief, Report: report, Findings: findings, Log: d.workerLog(n), Timeout: d.timeout,
		PIDFile: filepath.Join(d.ticketDir(n), "worker.pid"), Artifacts: d.artifacts(),
		// The ticket's fixers continue the implementer's agent session.
		Session: filepath.Join(d.ticketDir(n), "agent-session.json"),
		// An agent may run the ticket's recipe.
		Allow:       d.doc.Header.Tickets[d.index(n)].PerChange,
		Environment: []string{"SPECSTACK_NOTES=" + filepath.Join(d.artifacts(), "notes")}})
}

// writeBrief writes ticket n's brief: its title and body, its recipe, the
// baseline record and the notes directory.
func (d *driver) writeBrief(path string, n int) error {
	t := d.doc.Header.Tickets[d.index(n)]
	var b strings.Builder
	where := "on the branch checked out here and commit (what you leave uncommitted is committed for you)"
	if d.doc.Header.Workspaces == WorkspacesJJ {
		where = "in this jj workspace (jj records what you leave in the working copy; keep the commits below it)"
	}
	fmt.Fprintf(&b, "# Ticket #%d: %s\n\nPart of spec #%d %q in %s. Implement this ticket %s.\n\n",
		n, t.Title, d.doc.Header.Spec, d.doc.Header.Title, d.doc.Header.Repo, where)
	fmt.Fprintf(&b, "## Ticket\n\n%s\n\n## Recipe: run per change\n\n", strings.TrimSpace(t.Body))
	for _, c := range t.PerChange {
		fmt.Fprintf(&b, "- `%s`\n", c)
	}
	b.WriteString("\n## engine.Baseline at the pinned base " + d.doc.Header.BaseSHA + "\n\n")
	for _, c := range t.PerChange {
		if bl, ok := d.baselineOf(c); ok && bl.ExitCode != 0 {
			fmt.Fprintf(&b, "- `%s` already fails there (exit %d): a pre-existing failure\n", c, bl.ExitCode)
		} else {
			fmt.Fprintf(&b, "- `%s` passes there\n", c)
		}
	}
	fmt.Fprintf(&b, "\n## Notes\n\nShared notes of the run: %s\n", filepath.Join(d.artifacts(), "notes"))
	if err := os.MkdirAll(filepath.Join(d.artifacts(), "notes"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func (d *driver) baselineOf(c string) (engine.Baseline, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := NormalizeCommand(c)
	for cmd, bl := range d.state.Baseline {
		if NormalizeCommand(cmd) == k {
			return bl, true
		}
	}
	return engine.Baseline{}, false
}

// validate runs ticket n's per-change commands (only, when not nil) in
// dir on commit sha and records a receipt for each; it returns the
// commands that are red and were green at the base (a red command that
// failed at the base too is waived).
func (d *driver) validate(ctx context.Context, n int, dir, sha, stage string, only []string) ([]string, error) {
	t := d.doc.Header.Tickets[d.index(n)]
	cmds := t.PerChange
	if only != nil {
		cmds = only
	}
	return d.runChecks(ctx, n, dir, sha, stage, cmds, d.ticketDir(n))
}

// waived lists the commands of ticket n whose last receipt is waived.
func waived(t engine.TicketRun) []string {
	last := map[string]engine.Receipt{}
	var order []string
	for _, r := range t.Receipts {
		if _, ok := last[r.Command]; !ok {
			order = append(order, r.Command)
		}
		last[r.Command] = r
	}
	var res []string
	for _, c := range order {
		if last[c].Waived {
			res = append(res, c)
		}
	}
	return res
}

// publish takes ticket n through the publish lane: origin checked for the
// branch, a rebase (and a new validation) when the tip moved, else the
// waived checks re-run; one push, a draft pull request based on the tip,
// the stack registered. recovering is a resume of a publish a killed run
// began: what already reached GitHub is found, never made twice.
func (d *driver) publish(ctx context.Context, n int, recovering bool) error {
	d.lane.Lock()
	defer d.lane.Unlock()
	if d.halted() {
		return errStopped
	}
	branch := TicketBranch(n)
	t, tip, tipBranch := d.ticket(n)
	if !t.InLane {
		if sha, ok, err := d.env.VCS.LiveRemoteSHA(ctx, branch); err != nil {
			return err
		} else if ok {
			return d.halt(n, engine.StateNeedsDecision, fmt.Sprintf(
				"ticket #%d: %s already has %s (at %s), which this run did not push: publish-once never overwrites it; inspect it (git fetch %s; git log %s/%s), delete it on %s or close the ticket, then gh specstack resume",
				n, Remote, branch, short(sha), Remote, Remote, branch, Remote))
		}
		ws := d.workspace(n, t.Base)
		sha := t.SHA
		// A fixer may have rewound the branch after the first check;
		// checked before the lane takes the ticket, so a resume cuts it
		// again rather than finishing the publish.
		if err := d.descends(ctx, n, t.Base, t.BaseBranch, sha); err != nil {
			return err
		}
		if tipBranch == d.doc.Header.Bottom() && tip == d.doc.Header.BaseSHA {
			// The bottom was cut from the pinned SHA: whether origin's
			// base moved since is decided by SHA, and the ticket replayed
			// onto it.
			live, ok, err := d.env.VCS.LiveRemoteSHA(ctx, tipBranch)
			if err != nil {
				return err
			}
			if ok && live != tip {
				if err := d.env.VCS.Fetch(ctx); err != nil {
					return err
				}
				d.logf("#%d: %s's %s moved since it was pinned (%s → %s)", n, Remote, tipBranch, short(tip), short(live))
				tip = live
			}
		}
		if t.Base != tip {
			d.logf("#%d: the tip moved (%s → %s): rebasing onto %s", n, short(t.Base), short(tip), tipBranch)
			var err error
			if sha, err = d.backend.Rebase(ctx, ws, tip, t.Base, sha); err != nil {
				return d.halt(n, engine.StateNeedsDecision, fmt.Sprintf("ticket #%d: rebase onto %s: %v", n, tipBranch, err))
			}
			if err := d.record(at(n, engine.Rebased{Base: tip, BaseBranch: tipBranch, SHA: sha})); err != nil {
				return err
			}
			unmet, err := d.validate(ctx, n, ws.Path, sha, "publish", nil)
			if err != nil {
				return err
			}
			if len(unmet) > 0 {
				return d.halt(n, engine.StateUnmet, fmt.Sprintf("ticket #%d: red after its rebase onto %s: %s", n, tipBranch, strings.Join(unmet, ", ")))
			}
		} else if w := waived(t); len(w) > 0 {
			// A waived check is never inherited: run again and judged here.
			unmet, err := d.validate(ctx, n, ws.Path, sha, "publish", w)
			if err != nil {
				return err
			}
			if len(unmet) > 0 {
				return d.halt(n, engine.StateUnmet, fmt.Sprintf("ticket #%d: red at publish: %s", n, strings.Join(unmet, ", ")))
			}
		}
		if err := d.record(at(n, engine.Publishing{SHA: sha, BaseBranch: tipBranch})); err != nil {
			return err
		}
	}
	engine.CrashPoint("run-publishing-" + itoa(n))
	t, _, _ = d.ticket(n)
	if !t.Pushed {
		r, err := d.backend.Push(ctx, branch, t.SHA, true)
		if errors.Is(err, gitx.ErrRemoteMoved) {
			return d.halt(n, engine.StateNeedsDecision, fmt.Sprintf("ticket #%d: %v", n, err))
		}
		if err != nil {
			return err
		}
		engine.CrashPoint("run-pushed-" + itoa(n))
		if err := d.record(at(n, engine.TicketPushed{SHA: t.SHA})); err != nil {
			return err
		}
		d.logf("#%d: %s %s to %s", n, r, branch, Remote)
	}
	t, _, _ = d.ticket(n)
	if t.PR == 0 {
		if err := d.openPull(ctx, n, recovering); err != nil {
			return err
		}
	}
	engine.CrashPoint("run-pr-" + itoa(n))
	t, _, _ = d.ticket(n)
	if d.doc.Header.StackMode == ModeNative && !t.Stacked {
		if err := d.register(ctx, n, recovering); err != nil {
			// Finalize reconciles the registration; a publish never
			// fails on it.
			d.logf("#%d: register the stack: %v (finalize reconciles it)", n, err)
		}
	}
	t, _, _ = d.ticket(n)
	if err := d.record(at(n, engine.Published{SHA: t.SHA, Number: t.PR, URL: t.URL})); err != nil {
		return err
	}
	d.logf("#%d: published #%d %s → %s %s", n, t.PR, branch, t.BaseBranch, t.URL)
	return d.backend.Release(ctx, d.workspace(n, t.Base))
}

// openPull opens ticket n's draft pull request, or, in a recovered
// publish, adopts the one a killed run opened.
func (d *driver) openPull(ctx context.Context, n int, recovering bool) error {
	t, _, _ := d.ticket(n)
	branch := TicketBranch(n)
	if recovering {
		open, err := d.env.GH.Pulls(ctx, ghapi.PullFilter{State: "open", Head: branch})
		if err != nil {
			return err
		}
		if len(open) == 1 {
			p := open[0]
			d.logf("#%d: adopted #%d, opened before the run was stopped", n, p.Number)
			return d.record(at(n, engine.TicketPR{Number: p.Number, URL: p.HTMLURL, NodeID: p.NodeID}))
		}
	}
	p, err := d.env.GH.CreatePull(ctx, ghapi.NewPull{Title: t.Title, Head: branch, Base: t.BaseBranch, Draft: true, Body: d.body(n)})
	if err != nil {
		return fmt.Errorf("open the draft pull request of #%d: %w", n, err)
	}
	engine.CrashPoint("run-opened-" + itoa(n))
	return d.record(at(n, engine.TicketPR{Number: p.Number, URL: p.HTMLURL, NodeID: p.NodeID}))
}

// body is ticket n's pull request body.
func (d *driver) body(n int) string {
	d.mu.Lock()
	h, s := d.doc.Header, d.state
	t := *s.Tickets[n]
	k := len(s.Published) + 1
	d.mu.Unlock()
	role := "gate"
	if t.Rebased {
		role = "publisher" // the rebase made a tree the gate never saw
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Layer %d of %d planned for spec #%d (%s).\n\nCloses #%d\n\n", k, len(h.Tickets), h.Spec, h.Title, n)
	fmt.Fprintf(&b, "Validated green at %s by %s\n", t.SHA, role)
	for _, r := range lastReceipts(t) {
		if r.Waived {
			fmt.Fprintf(&b, "Waived: %s exited %d\n", r.Command, r.ExitCode)
		}
	}
	if len(t.Unresolved) > 0 {
		b.WriteString("\nUnresolved gate findings (after the last review round):\n")
		for _, f := range t.Unresolved {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	if t.Agent != nil {
		fmt.Fprintf(&b, "Agents on this ticket: %s\n", t.Agent)
	}
	if t.Decisions != "" {
		b.WriteString("\nDecisions the worker recorded:\n\n" + t.Decisions + "\n")
	}
	if len(t.Rejected) > 0 {
		b.WriteString("\nDecisions recorded by the fixer:\n")
		for _, f := range t.Rejected {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	b.WriteString("\nOpened as a draft by gh specstack run; marked ready once the whole stack is published.\n")
	return b.String()
}

// lastReceipts is the newest receipt of each command, in first-run order.
func lastReceipts(t engine.TicketRun) []engine.Receipt {
	last := map[string]engine.Receipt{}
	var order []string
	for _, r := range t.Receipts {
		if _, ok := last[r.Command]; !ok {
			order = append(order, r.Command)
		}
		last[r.Command] = r
	}
	res := make([]engine.Receipt, len(order))
	for i, c := range order {
		res[i] = last[c]
	}
	return res
}

// register adds ticket n's pull request on top of the native stack
// through link's stack plan: created from the second layer, one add per
// layer after it, from what the ledger knows (no listing); a recovered
// publish reads the stacks once, so a registration a killed run made is
// not made again.
func (d *driver) register(ctx context.Context, n int, recovering bool) error {
	d.mu.Lock()
	nums := layerPRs(d.state)
	known := d.state.Stack
	nums = append(nums, d.state.Tickets[n].PR)
	d.mu.Unlock()
	if len(nums) < 2 {
		return nil
	}
	var stacks []ghapi.Stack
	if recovering {
		var err error
		if stacks, err = d.env.GH.Stacks(ctx); err != nil {
			return err
		}
	} else if known != 0 {
		s := ghapi.Stack{Number: known}
		for _, p := range nums[:len(nums)-1] {
			s.PullRequests = append(s.PullRequests, ghapi.StackEntry{Number: p})
		}
		stacks = []ghapi.Stack{s}
	}
	plan, err := planStack(stacks, nums)
	if err != nil {
		return err
	}
	res := &LinkResult{}
	if err := plan.apply(ctx, d.env.GH, nums, res, d.opts.Progress); err != nil {
		return err
	}
	return d.record(at(n, engine.Stacked{Stack: res.Stack}))
}

// decisions is the "## Decisions" section of a worker's report (up to
// the next heading of that level), trimmed and bounded; "" when none.
func decisions(report string) string {
	data, err := readWorkerFile(report)
	if err != nil {
		return ""
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if level, text, ok := heading(line); ok && level <= 2 {
			in = level == 2 && strings.EqualFold(strings.TrimSpace(text), "decisions")
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	s := strings.TrimSpace(strings.Join(out, "\n"))
	if len(s) > 4000 {
		s = s[:4000] + "\n…"
	}
	return s
}
