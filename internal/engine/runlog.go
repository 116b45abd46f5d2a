package engine

import (
	"github.com/specstack/specstack/internal/agent"

	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Breakpoint is where `resume` continues a run: the first wave not fanned
// in, the first task there that is not past the step, and the step.
type Breakpoint struct {
	Wave int    `json:"wave,omitempty"`
	Task int    `json:"task,omitempty"`
	Step string `json:"step"` // provision, dispatch, integrity, review, fix, fan-in, gate, complete; none when the run is over
	Note string `json:"note,omitempty"`
}

// Steps of a Breakpoint.
const (
	StepProvision = "provision"
	StepDispatch  = "dispatch"
	StepIntegrity = "integrity"
	StepReview    = "review"
	StepFix       = "fix"
	StepFanIn     = "fan-in"
	StepGate      = "gate"
	StepComplete  = "complete"
	StepNone      = "none"
)

// BreakpointOf says where Drive continues the run d (it follows Drive's
// order: per wave provision, dispatch, integrity, review and fixes,
// fan-in; then the gate and completion).
func BreakpointOf(d *Doc) Breakpoint {
	st := Fold(d)
	switch {
	case st.Aborted:
		return Breakpoint{Step: StepNone, Note: "the run was aborted"}
	case st.Complete:
		return Breakpoint{Step: StepNone, Note: "the run is complete"}
	}
	for i, nums := range d.Header.Waves {
		w := i + 1
		if st.FannedIn[w] {
			continue
		}
		live := func(t *TaskState) bool { return !t.Squashed && !(t.Collected && t.Failed()) }
		first := func(pred func(t *TaskState) bool) int {
			for _, n := range nums {
				if t := st.Tasks[n]; t != nil && pred(t) {
					return n
				}
			}
			return 0
		}
		if n := first(func(t *TaskState) bool { return t.Squashing || len(t.Conflict) > 0 }); n != 0 {
			return Breakpoint{Wave: w, Task: n, Step: StepFanIn, Note: st.Halted}
		}
		if n := first(func(t *TaskState) bool { return live(t) && t.Workspace == "" }); n != 0 {
			return Breakpoint{Wave: w, Task: n, Step: StepProvision, Note: st.Halted}
		}
		if n := first(func(t *TaskState) bool { return live(t) && !t.Collected }); n != 0 {
			note := st.Halted
			if st.Tasks[n].Dispatched > 0 && note == "" {
				note = "its worker was started: a finished report is collected, else the worker starts again on a clean change"
			}
			return Breakpoint{Wave: w, Task: n, Step: StepDispatch, Note: note}
		}
		if st.Integrity != "" {
			return Breakpoint{Wave: w, Step: StepIntegrity, Note: st.Integrity}
		}
		if n := first(func(t *TaskState) bool { return live(t) && !t.Reviewed }); n != 0 {
			return Breakpoint{Wave: w, Task: n, Step: StepReview, Note: st.Halted}
		}
		if n := first(func(t *TaskState) bool { return live(t) && !t.Approved }); n != 0 {
			return Breakpoint{Wave: w, Task: n, Step: StepFix, Note: st.Halted}
		}
		return Breakpoint{Wave: w, Task: first(live), Step: StepFanIn, Note: st.Halted}
	}
	if st.Gate == "" || st.Gate == GateFailed {
		return Breakpoint{Step: StepGate, Note: st.Halted}
	}
	return Breakpoint{Step: StepComplete, Note: st.Halted}
}

func (b Breakpoint) String() string {
	var parts []string
	if b.Wave > 0 {
		parts = append(parts, fmt.Sprintf("wave %d", b.Wave))
	}
	if b.Task > 0 {
		parts = append(parts, fmt.Sprintf("task %d", b.Task))
	}
	parts = append(parts, b.Step)
	return strings.Join(parts, ", ")
}

// LogEntry is one event of the run log.
type LogEntry struct {
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	Wave      int       `json:"wave,omitempty"`
	Task      int       `json:"task,omitempty"`
	Role      string    `json:"role,omitempty"`
	Status    string    `json:"status,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	Change    string    `json:"change,omitempty"`
	Files     []string  `json:"files,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Receipt   *Receipt  `json:"receipt,omitempty"`
	// Agent is what an agent preset said the job spent.
	Agent *agent.Usage `json:"agent,omitempty"`
}

// RunLog is the ledger as a log a person reads: where resume continues,
// then every event, newest first.
type RunLog struct {
	RunID      string     `json:"run_id"`
	Plan       string     `json:"plan"`
	Started    time.Time  `json:"started"`
	Breakpoint Breakpoint `json:"breakpoint"`
	Events     []LogEntry `json:"events"`
	// Agent sums what the run's agent jobs spent (nil: none ran).
	Agent *agent.Usage `json:"agent,omitempty"`
}

// BuildLog renders run d's ledger as a run log.
func BuildLog(d *Doc) *RunLog {
	l := &RunLog{RunID: d.Header.RunID, Plan: d.Header.Plan, Started: d.Header.Started, Breakpoint: BreakpointOf(d), Events: []LogEntry{}}
	for _, e := range slices.Backward(d.Events) {
		// The log shows the keys every stored event has (its JSON is
		// the same for every release): read them from the stored form.
		f := e.record()
		le := LogEntry{At: e.At, Kind: f.Kind, Wave: e.Wave, Task: e.Task, Role: e.Role, Status: f.Status,
			Workspace: f.Workspace, Change: f.Change, Files: f.Files, Reason: f.Reason, Agent: f.Agent}
		if f.Agent != nil {
			l.Agent = agent.Sum(l.Agent, *f.Agent)
		}
		if p, ok := e.Payload.(ReceiptRecorded); ok {
			rc := receiptOf(e, p)
			le.Receipt, le.Reason = &rc, ""
		}
		l.Events = append(l.Events, le)
	}
	return l
}

// Text renders the log for people: the breakpoint first, then one line
// per event, newest first.
func (l *RunLog) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s (%s), started %s\n", l.RunID, l.Plan, l.Started.UTC().Format(time.RFC3339))
	if l.Breakpoint.Step == StepNone {
		fmt.Fprintf(&b, "breakpoint: none: %s\n", l.Breakpoint.Note)
	} else {
		fmt.Fprintf(&b, "breakpoint: resume continues at %s", l.Breakpoint)
		if l.Breakpoint.Note != "" {
			fmt.Fprintf(&b, " (%s)", l.Breakpoint.Note)
		}
		b.WriteString("\n")
	}
	for _, e := range l.Events {
		fmt.Fprintf(&b, "%s", e.At.UTC().Format("2006-01-02T15:04:05.000Z"))
		if e.Wave > 0 {
			fmt.Fprintf(&b, " wave %d", e.Wave)
		}
		if e.Task > 0 {
			fmt.Fprintf(&b, " task %d", e.Task)
		}
		fmt.Fprintf(&b, " %s", e.Kind)
		if e.Role != "" && e.Receipt == nil {
			fmt.Fprintf(&b, " %s", e.Role)
		}
		if e.Status != "" {
			fmt.Fprintf(&b, " (%s)", e.Status)
		}
		if rc := e.Receipt; rc != nil {
			verb := "ran"
			if rc.Reused {
				verb = "reused"
			}
			on := "tree " + short(rc.Tree)
			if sum, ok := strings.CutPrefix(rc.Tree, "diff-sha256:"); ok {
				on = "diff " + short(sum)
			}
			fmt.Fprintf(&b, " %s %s %q on %s: exit %d, output %s", rc.Role, verb, rc.Command, on, rc.ExitCode, short(rc.Digest))
		}
		if e.Change != "" {
			fmt.Fprintf(&b, " change %s", short(e.Change))
		}
		if len(e.Files) > 0 {
			fmt.Fprintf(&b, " files %s", strings.Join(e.Files, ","))
		}
		if e.Reason != "" {
			fmt.Fprintf(&b, " — %s", e.Reason)
		}
		if e.Agent != nil {
			fmt.Fprintf(&b, " [%s]", e.Agent)
		}
		b.WriteString("\n")
	}
	if l.Agent != nil {
		fmt.Fprintf(&b, "agents: %s\n", l.Agent)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
