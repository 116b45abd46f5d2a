package engine

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/xec"
)

// Coverage is the plan-coverage report: per wave, per task, what became
// of it and why, and which workspaces were preserved.
type Coverage struct {
	RunID string `json:"run_id"`
	Plan  string `json:"plan"`
	Phase string `json:"phase"` // running, interrupted, gate-failed, halted, complete, aborted
	// PID is the live process driving a running run (the ledger lock's
	// holder); Next says how to go on with one nobody drives.
	PID       int            `json:"pid,omitempty"`
	Next      string         `json:"next,omitempty"`
	Halted    string         `json:"halted,omitempty"`
	Merged    int            `json:"merged"`
	Empty     int            `json:"empty"` // squashed tasks whose change was empty
	Total     int            `json:"total"`
	Waves     []WaveCoverage `json:"waves"`
	Gate      string         `json:"gate"`
	GateNote  string         `json:"gate_note,omitempty"`
	Preserved []string       `json:"preserved_workspaces"`
	Artifacts string         `json:"artifacts"`
	StartOp   string         `json:"start_op"`
	Receipts  []Receipt      `json:"receipts"` // every gate's evidence, oldest first
	// ConfidenceOverrides are the recorded reasons for passing reviews
	// whose confidence was below min-confidence.
	ConfidenceOverrides []string `json:"confidence_overrides,omitempty"`
	// Agent is what every agent job of the run spent, reviewers included.
	Agent *agent.Usage `json:"agent,omitempty"`
	// Executor is where implementers run, when not here (github-actions).
	Executor string `json:"executor,omitempty"`
}

// WaveCoverage is one wave of a Coverage.
type WaveCoverage struct {
	Wave          int            `json:"wave"`
	FannedIn      bool           `json:"fanned_in"`
	NoTestSurface bool           `json:"no_test_surface"`
	Tasks         []TaskCoverage `json:"tasks"`
}

// TaskCoverage is one task of a Coverage.
type TaskCoverage struct {
	Task      int      `json:"task"`
	Title     string   `json:"title"`
	Outcome   string   `json:"outcome"` // merged, empty, blocked, failed, leaked, pending, provisioned, running, interrupted, collected, approved, review-failed, conflict, aborted
	Status    string   `json:"status,omitempty"`
	Why       string   `json:"why,omitempty"`
	Change    string   `json:"change,omitempty"`
	Files     []string `json:"files,omitempty"`
	Tests     string   `json:"tests,omitempty"`  // passed, failed, no-test-surface, not-run
	Review    string   `json:"review,omitempty"` // passed (a reviewer ran and passed it), failed, skipped
	Workspace string   `json:"workspace,omitempty"`
	Preserved bool     `json:"preserved"`
	// Notes are the non-blocking findings (suggestion, cannot-verify) a
	// person should read: cannot-verify ones need the plan's context.
	Notes    int    `json:"notes,omitempty"`
	Findings string `json:"findings,omitempty"`
	// Agent is what the task's agent jobs spent (implementer and fixers).
	Agent *agent.Usage `json:"agent,omitempty"`
	// RunURL is the task's newest run on the executor, and RunState how
	// it stands (dispatched, or its conclusion).
	RunURL    string `json:"run_url,omitempty"`
	RunState  string `json:"run_state,omitempty"`
	RunRunner string `json:"run_runner,omitempty"`
}

// Report builds the coverage report from the ledger.
func (r *Runner) Report() *Coverage {
	return BuildCoverage(r.Doc, ArtifactsDir(r.Dir))
}

// BuildCoverage builds the report from a ledger document.
func BuildCoverage(d *Doc, artifacts string) *Coverage {
	st := Fold(d)
	c := &Coverage{RunID: d.Header.RunID, Plan: d.Header.Plan, Phase: "running", Halted: st.Halted,
		Gate: st.Gate, GateNote: st.GateReason, Preserved: []string{}, Artifacts: artifacts, StartOp: d.Header.StartOp,
		Receipts: append([]Receipt{}, st.Receipts...), ConfidenceOverrides: st.Overrides, Agent: st.Agent, Executor: d.Header.Options.Executor}
	switch {
	case st.Aborted:
		c.Phase = PhaseAborted
	case st.Complete:
		c.Phase = "complete"
	case st.Halted != "":
		c.Phase = "halted"
	}
	for i, nums := range d.Header.Waves {
		wc := WaveCoverage{Wave: i + 1, FannedIn: st.FannedIn[i+1], NoTestSurface: st.NoTestSurface[i+1]}
		for _, n := range nums {
			t := st.Tasks[n]
			c.Total++
			tc := TaskCoverage{Agent: t.Agent, Task: n, Title: t.Title, Status: t.Status, Change: t.Change, Files: t.Files, Tests: t.Tests, Workspace: t.Workspace,
				Notes: t.Notes, Findings: t.Findings, Review: t.Review}
			if rr := t.Remote; rr != nil {
				tc.RunURL, tc.RunState, tc.RunRunner = rr.URL, cmp.Or(rr.Conclusion, "dispatched"), rr.Runner
			}
			if tc.Tests == "" && (t.Approved || t.Squashed) {
				tc.Tests = TestNotRun
			}
			switch {
			case t.Squashed && len(t.Conflict) > 0:
				tc.Outcome, tc.Why = "conflict", "conflicts in @: "+strings.Join(t.Conflict, ", ")
			case t.Squashed && len(t.Files) == 0:
				tc.Outcome = "empty"
			case t.Squashed:
				tc.Outcome = "merged"
			case t.Leak:
				tc.Outcome, tc.Why = "leaked", t.Reason
			case t.Collected && t.Failed():
				tc.Outcome, tc.Why = "failed", t.Reason
				if t.Status == StatusBlocked || t.Status == StatusNeedsContext {
					tc.Outcome = "blocked"
					if tc.Why == "" {
						tc.Why = "the worker reported " + t.Status + "; see " + strings.TrimSuffix(artifacts, "/") + fmt.Sprintf("/task-%d-report.md", n)
					}
				}
			case t.Reviewed && !t.Approved:
				tc.Outcome, tc.Why = "review-failed", "findings: "+t.Findings
			case t.Approved:
				tc.Outcome = "approved"
			case t.Collected:
				tc.Outcome = "collected"
			case t.Dispatched > 0:
				tc.Outcome = "running"
			case t.Workspace != "":
				tc.Outcome = "provisioned"
			default:
				tc.Outcome = "pending"
			}
			switch {
			case st.Aborted && t.Squashed:
				// The abort restored the run's start operation: what
				// was squashed into @ is undone, so nothing is merged.
				what := tc.Outcome + " into @" // merged, empty
				if tc.Outcome == "conflict" {
					what = "squashed into @ with conflicts"
				}
				tc.Outcome, tc.Why = PhaseAborted, what+", then undone by the abort"
			case st.Aborted && !finished[tc.Outcome]:
				// Nothing runs after an abort: a task it cut short
				// (started or not) ends here.
				tc.Outcome = PhaseAborted
			}
			switch tc.Outcome {
			case "merged":
				c.Merged++
			case "empty":
				c.Empty++
			}
			if t.Workspace != "" && !t.Released && !st.Aborted {
				tc.Preserved = true
				c.Preserved = append(c.Preserved, t.Workspace+" ("+t.Path+")")
			}
			wc.Tasks = append(wc.Tasks, tc)
		}
		c.Waves = append(c.Waves, wc)
	}
	return c
}

// finished are the outcomes of a task that ended before its run did;
// an aborted run's other tasks are "aborted".
var finished = map[string]bool{"merged": true, "empty": true, "conflict": true, "leaked": true, "failed": true, "blocked": true}

// Settle tells a running run from a dead one by the ledger lock of dir:
// a live process holding it (not this one, which reports as it ends) is
// the run's driver, named by PID; else nobody drives the run, which is
// "interrupted" (its running tasks too), or "gate-failed" when its final
// gate is red, with Next naming cmds' verbs to go on. A run the ledger
// says halted, complete or aborted is left as it is.
func (c *Coverage) Settle(dir string, cmds Commands) {
	if c.Phase != "running" {
		return
	}
	if pid := Driver(dir); pid != 0 {
		c.PID = pid
		return
	}
	c.Phase = PhaseInterrupted
	c.Next = fmt.Sprintf("no process is driving the run: resume with `%s`, or undo it with `%s`", cmds.Resume, cmds.Abort)
	if c.Gate == GateFailed {
		c.Phase = PhaseGateFailed
		c.Next = fmt.Sprintf("the final gate is red: fix the merged work, then resume with `%s`, or undo it with `%s`", cmds.Resume, cmds.Abort)
	}
	for i := range c.Waves {
		for j := range c.Waves[i].Tasks {
			if t := &c.Waves[i].Tasks[j]; t.Outcome == "running" {
				t.Outcome = PhaseInterrupted
			}
		}
	}
}

// Driver is the pid of the live process that holds the ledger lock of
// dir, driving its run; 0 when none does, or when the holder is this
// process (which reports as it ends).
func Driver(dir string) int {
	if h, ok := ledger.LiveHolder(dir); ok && h.PID != os.Getpid() {
		return h.PID
	}
	return 0
}

// Phases of a run nobody drives (Settle).
const (
	PhaseInterrupted = "interrupted"
	PhaseGateFailed  = "gate-failed"
)

// PhaseAborted is an aborted run's phase, and the outcome of each of its
// tasks the abort cut short.
const PhaseAborted = "aborted"

// Text renders the report for people.
func (c *Coverage) Text(w io.Writer) error {
	var b strings.Builder
	empty := ""
	if c.Empty > 0 {
		empty = fmt.Sprintf(" (%d empty)", c.Empty)
	}
	switch c.Phase {
	case "complete":
		waves := "waves"
		if len(c.Waves) == 1 {
			waves = "wave"
		}
		fmt.Fprintf(&b, "run complete: %d/%d tasks merged%s across %d %s\n", c.Merged, c.Total, empty, len(c.Waves), waves)
	default:
		phase := c.Phase
		if c.PID != 0 {
			phase = fmt.Sprintf("%s (pid %d)", phase, c.PID)
		}
		fmt.Fprintf(&b, "run %s: %s (%d/%d tasks merged%s)\n", c.RunID, phase, c.Merged, c.Total, empty)
	}
	if c.Next != "" {
		fmt.Fprintf(&b, "%s: %s\n", c.Phase, c.Next)
	}
	if c.Halted != "" && c.Phase == "halted" {
		fmt.Fprintf(&b, "halted: %s\n", c.Halted)
	}
	for _, wv := range c.Waves {
		state := "pending"
		switch {
		case c.Phase == PhaseAborted: // a fan-in too is undone
			state = PhaseAborted
		case wv.FannedIn:
			state = "fanned in"
		}
		fmt.Fprintf(&b, "wave %d (%s", wv.Wave, state)
		if wv.NoTestSurface {
			b.WriteString(", no test surface: no test command covers its files")
		}
		b.WriteString("):\n")
		for _, t := range wv.Tasks {
			fmt.Fprintf(&b, "  task %d %s: %s", t.Task, quoteTitle(t.Title), t.Outcome)
			if t.Why != "" {
				fmt.Fprintf(&b, " — %s", t.Why)
			}
			if t.Review != "" {
				fmt.Fprintf(&b, "; review %s, %s", t.Review, testsPhrase(t.Tests))
			}
			if t.Notes > 0 && t.Findings != "" {
				fmt.Fprintf(&b, " (%s to read: %s)", plural.Count(t.Notes, "non-blocking finding", "non-blocking findings"), t.Findings)
			}
			if t.Agent != nil {
				fmt.Fprintf(&b, "; implemented by %s", t.Agent)
			}
			if t.RunURL != "" {
				fmt.Fprintf(&b, "; on GitHub Actions (%s%s): %s", t.RunState, onRunner(t.RunRunner), t.RunURL)
			}
			b.WriteString("\n")
		}
	}
	switch c.Gate {
	case GatePassed:
		fmt.Fprintf(&b, "final gate: passed (%s)\n", c.GateNote)
	case GateFailed:
		fmt.Fprintf(&b, "final gate: FAILED: %s\n", c.GateNote)
	case GateNone:
		b.WriteString("final gate: none — no test command configured, no automated check ran on the combined result\n")
	}
	for _, o := range c.ConfidenceOverrides {
		fmt.Fprintf(&b, "confidence override: %s\n", o)
	}
	if c.Agent != nil {
		fmt.Fprintf(&b, "agents: %s\n", c.Agent)
	}
	for _, p := range c.Preserved {
		fmt.Fprintf(&b, "workspace preserved: %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quoteTitle(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

// testsPhrase says what a task's tests did, for people: a task no test
// command covered, or that reached fan-in without tests, says so.
func testsPhrase(tests string) string {
	switch tests {
	case GatePassed:
		return "tests passed"
	case GateFailed:
		return "tests failed"
	}
	return "no test ran"
}

// NotMerged lists the tasks that did not reach @ (an empty change counts
// as done), each with its outcome and why.
func (c *Coverage) NotMerged() []TaskCoverage {
	var res []TaskCoverage
	for _, w := range c.Waves {
		for _, t := range w.Tasks {
			if t.Outcome != "merged" && t.Outcome != "empty" {
				res = append(res, t)
			}
		}
	}
	return res
}

// notMergedError is the error of a run that completed with tasks left
// out of @: exit 9 (a person must look), naming each task and why.
func (c *Coverage) notMergedError(cmds Commands) error {
	left := c.NotMerged()
	if len(left) == 0 {
		return nil
	}
	var items []string
	var kept []string
	for _, t := range left {
		item := fmt.Sprintf("task %d %s %s", t.Task, quoteTitle(t.Title), t.Outcome)
		if t.Why != "" {
			item += " (" + t.Why + ")"
		}
		items = append(items, item)
		if t.Preserved {
			kept = append(kept, fmt.Sprint(t.Task))
		}
	}
	verb := "were"
	if len(left) == 1 {
		verb = "was"
	}
	msg := fmt.Sprintf("run complete, but %d of %d tasks %s not merged: %s", len(left), c.Total, verb, strings.Join(items, "; "))
	if len(kept) > 0 {
		release := fmt.Sprintf("`%s` releases them", cmds.Sweep)
		if cmds.Sweep == "" {
			release = fmt.Sprintf("`%s` releases them and undoes the run", cmds.Abort)
		}
		msg += fmt.Sprintf("; workspaces kept for inspection: task %s (`%s` shows where; %s)", strings.Join(kept, ", "), cmds.Status, release)
	}
	if cmds.Retry != "" && c.Plan != "" && c.Plan != "ad-hoc" {
		nums := make([]string, len(left))
		for i, t := range left {
			nums[i] = fmt.Sprint(t.Task)
		}
		msg += fmt.Sprintf("; `%s` tries %s again in a new run", fmt.Sprintf(cmds.Retry, xec.ShellWord(c.Plan), strings.Join(nums, ",")), plural.Word(len(left), "it", "them"))
	}
	return exitcode.New(exitcode.Halted, "%s", msg)
}

// onRunner names a run's runner in a status line ("" when unknown).
func onRunner(name string) string {
	if name == "" {
		return ""
	}
	return ", runner " + name
}
