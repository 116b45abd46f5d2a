package stack

import (
	"github.com/specstack/specstack/internal/agent"

	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
)

// Ticket states of a run, as `gh specstack status` shows them.
const (
	StateNotStarted    = "not-started"
	StateWorking       = "working"
	StateGating        = "gating"
	StatePublishing    = "publishing"
	StatePublished     = "published"
	StateSubsumed      = "subsumed"
	StateFailed        = "failed"
	StateUnmet         = "unmet"
	StateNeedsDecision = "needs-decision"
	// StateFinishedPrior: the worker's graph step found the ticket
	// already finished on the prior work; its pull request closes it.
	StateFinishedPrior = "finished-on-prior-work"
)

// A finalized run's outcomes: complete (the top pull request closes the
// spec) or incomplete (something keeps the spec open; a person must look).
const (
	FinalComplete   = "complete"
	FinalIncomplete = "incomplete"
)

// Run orders.
const (
	OrderSequential = "sequential"
	OrderParallel   = "parallel"
)

// RunHeader is what `run` settled before anything ran; resume works from
// it and never settles again.
type RunHeader struct {
	Spec      int    `toml:"spec"`
	Title     string `toml:"title"`
	Repo      string `toml:"repo"`
	StackMode string `toml:"stack_mode"`
	Base      string `toml:"base"`
	StartRef  string `toml:"start_ref"`
	// Prior is the branch of prior work (--start-ref), the stack's layer
	// 0; "" for none.
	Prior         string `toml:"prior,omitempty"`
	BaseSHA       string `toml:"base_sha"`
	HumanLabel    string `toml:"human_label"`
	Order         string `toml:"order"`
	Worker        string `toml:"worker"`
	Reviewer      string `toml:"reviewer,omitempty"`
	MaxParallel   int    `toml:"max_parallel"`
	GateMaxRounds int    `toml:"gate_max_rounds"`
	Timeout       string `toml:"timeout"` // per worker or command, a Go duration
	// MaxCost stops starting agent jobs once the agents spent it (USD);
	// 0: no limit.
	MaxCost  float64     `toml:"max_cost,omitempty"`
	Started  time.Time   `toml:"started"`
	Tickets  []RunTicket `toml:"ticket"` // bottom layer first
	Excluded []Excluded  `toml:"excluded,omitempty"`
	// Workspaces is where tickets are built: WorkspacesJJ or
	// WorkspacesGit ("" in ledgers from before jj workspaces: git).
	Workspaces string `toml:"workspaces,omitempty"`
}

// RunTicket is one planned ticket with its recipe.
type RunTicket struct {
	Number    int      `toml:"number" json:"number"`
	Title     string   `toml:"title" json:"title"`
	Body      string   `toml:"body" json:"-"`
	Layer     int      `toml:"layer" json:"layer"`
	Position  int      `toml:"position" json:"-"`
	BlockedBy []int    `toml:"blocked_by" json:"blocked_by"`
	PerChange []string `toml:"per_change" json:"per_change"`
	AtReview  []string `toml:"at_review,omitempty" json:"at_review,omitempty"`
}

// Run event kinds.
const (
	evBaseline   = "baseline"   // Command, ExitCode, Output
	evCut        = "cut"        // Ticket, Base, BaseBranch
	evWorked     = "worked"     // Ticket, Role, ExitCode
	evDecisions  = "decisions"  // Ticket, Reason: the "## Decisions" of the worker's report
	evCollected  = "collected"  // Ticket, SHA ("" when the branch adds nothing)
	evReceipt    = "receipt"    // Ticket, Command, ExitCode, SHA, Status (passed|waived|failed), Stage
	evReview     = "review"     // Ticket, Round, Status (passed|blocked), Findings
	evVerdict    = "verdict"    // Ticket, Round, Status (fixed|rejected|none), Finding, Reason
	evDropped    = "dropped"    // Ticket, Round, Finding, Reason: a re-raised rejected finding
	evUnresolved = "unresolved" // Ticket, Finding: still open after the last round
	evRebased    = "rebased"    // Ticket, Base, BaseBranch, SHA
	evPublishing = "publishing" // Ticket, SHA, BaseBranch: the push may happen from here on
	evPushed     = "pushed"     // Ticket, SHA
	evPR         = "pr"         // Ticket, PR, URL, NodeID
	evStacked    = "stacked"    // Ticket, Stack
	evPublished  = "published"  // Ticket, SHA, PR, URL
	evSubsumed   = "subsumed"   // Ticket
	evHalted     = "halted"     // Ticket, Status (a ticket state), Reason
	evResumed    = "resumed"
	evReady      = "ready"     // PR
	evFinalized  = "finalized" // Status: complete | incomplete ("open" in older ledgers)
	// The whole-stack review (Ticket 0).
	evStackReview        = "stack-review"        // Status (passed|blocked|fixed), Findings
	evIntegrating        = "integrating"         // SHA, BaseBranch: the integration branch may be pushed from here on
	evIntegrationPushed  = "integration-pushed"  // SHA
	evIntegrationPR      = "integration-pr"      // PR, URL, NodeID
	evIntegrationStacked = "integration-stacked" // Stack
	// Prior work (--start-ref), layer 0.
	evPriorFinished = "prior-finished" // Ticket, Reason: the worker's evidence
	evPriorGraphed  = "prior-graphed"  // the graph step is over
	evPriorPushed   = "prior-pushed"   // SHA
	evPriorPR       = "prior-pr"       // PR, URL, NodeID
)

// RunEvent is one line of a run's history.
type RunEvent struct {
	At         time.Time `toml:"at"`
	Kind       string    `toml:"kind"`
	Ticket     int       `toml:"ticket,omitempty"`
	Role       string    `toml:"role,omitempty"`
	Command    string    `toml:"command,omitempty"`
	ExitCode   int       `toml:"exit_code,omitempty"`
	Output     string    `toml:"output,omitempty"`
	SHA        string    `toml:"sha,omitempty"`
	Base       string    `toml:"base,omitempty"`
	BaseBranch string    `toml:"base_branch,omitempty"`
	Status     string    `toml:"status,omitempty"`
	Stage      string    `toml:"stage,omitempty"`
	Round      int       `toml:"round,omitempty"`
	Finding    string    `toml:"finding,omitempty"`
	Findings   int       `toml:"findings,omitempty"`
	Reason     string    `toml:"reason,omitempty"`
	PR         int       `toml:"pr,omitempty"`
	URL        string    `toml:"url,omitempty"`
	NodeID     string    `toml:"node_id,omitempty"`
	Stack      int       `toml:"stack,omitempty"`
	// Agent is what an agent preset said a job spent (worked).
	Agent *agent.Usage `toml:"agent,omitempty"`
}

// RunDoc is a run's ledger document.
type RunDoc = ledger.Doc[RunHeader, RunEvent]

// RunLedgerPath is the run's ledger in gh-specstack's ledger directory.
func RunLedgerPath(ledgerDir string) string { return filepath.Join(ledgerDir, "run.toml") }

// ReadRun reads the run's ledger; ok is false when there is none.
func ReadRun(ledgerDir string) (*RunDoc, bool, error) {
	d, err := ledger.Read[RunHeader, RunEvent](RunLedgerPath(ledgerDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return d, err == nil, err
}

// Baseline is a per-change command measured at the pinned base SHA.
type Baseline struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output,omitempty"` // the end of what it printed, when it failed
}

// TicketRun is what the events say about one ticket.
type TicketRun struct {
	RunTicket
	State      string `json:"state"`
	Reason     string `json:"reason,omitempty"`
	Base       string `json:"base,omitempty"`
	BaseBranch string `json:"base_branch,omitempty"`
	SHA        string `json:"sha,omitempty"`
	PR         int    `json:"pr,omitempty"`
	URL        string `json:"url,omitempty"`
	NodeID     string `json:"-"`
	Pushed     bool   `json:"-"`
	// InLane: the publish lane took the ticket (its push may have
	// happened); a resume finishes that publish, whatever halted it.
	InLane    bool             `json:"-"`
	Rebased   bool             `json:"rebased,omitempty"`
	Decisions string           `json:"decisions,omitempty"`
	Stacked   bool             `json:"-"`
	Receipts  []engine.Receipt `json:"receipts"`
	// Agent is what the ticket's agent jobs spent.
	Agent      *agent.Usage `json:"agent,omitempty"`
	Rounds     int          `json:"gate_rounds,omitempty"`
	Rejected   []string     `json:"rejected,omitempty"`
	Dropped    []string     `json:"dropped,omitempty"`
	Unresolved []string     `json:"unresolved,omitempty"`
}

// RunState is the fold of a run's events.
type RunState struct {
	Tickets   map[int]*TicketRun
	Baseline  map[string]Baseline
	Published []int // bottom first
	Stack     int   // the native stack, 0 before it is registered
	Halted    string
	Ready     map[int]bool
	Finalized string // "", complete or incomplete
	// Review is the whole-stack review's outcome: "" (not run), passed,
	// blocked (findings and no fix to publish) or fixed.
	Review          string
	ReviewReceipts  []engine.Receipt
	ReviewNoVerdict []string // blocking findings of the review the fixer gave no verdict
	ReviewRejected  []string
	Integration     *IntegrationRun
	Prior           PriorRun
	// Agent sums what the run's agent jobs spent (nil: none ran).
	Agent *agent.Usage
}

// PriorRun is the prior work's layer 0.
type PriorRun struct {
	Graphed bool   `json:"graphed"`
	Pushed  bool   `json:"-"`
	PR      int    `json:"pr,omitempty"`
	URL     string `json:"url,omitempty"`
	NodeID  string `json:"-"`
}

// IntegrationRun is the integration pull request on top of the stack.
type IntegrationRun struct {
	Branch     string `json:"branch"`
	BaseBranch string `json:"base_branch"`
	SHA        string `json:"sha"`
	PR         int    `json:"pr,omitempty"`
	URL        string `json:"url,omitempty"`
	NodeID     string `json:"-"`
	Pushed     bool   `json:"-"`
	Stacked    bool   `json:"-"`
}

// Tip is the published top of the stack: its SHA and branch, the pinned
// base when nothing is published.
func (s *RunState) Tip(h RunHeader) (sha, branch string) {
	if n := len(s.Published); n > 0 {
		t := s.Tickets[s.Published[n-1]]
		return t.SHA, TicketBranch(t.Number)
	}
	return h.BaseSHA, h.Bottom()
}

// Bottom is the branch the bottom ticket's pull request is based on: the
// prior work when there is some, else the base.
func (h RunHeader) Bottom() string {
	if h.Prior != "" {
		return h.Prior
	}
	return h.Base
}

// layerPRs are the stack's pull requests, bottom first: the prior work's,
// the published tickets', the integration's.
func (s *RunState) layerPRs() []int {
	var nums []int
	if s.Prior.PR != 0 {
		nums = append(nums, s.Prior.PR)
	}
	for _, n := range s.Published {
		nums = append(nums, s.Tickets[n].PR)
	}
	if s.Integration != nil && s.Integration.PR != 0 {
		nums = append(nums, s.Integration.PR)
	}
	return nums
}

// FoldRun derives the state from the document. It is total: any event
// list folds without a panic; an event naming a ticket the header does
// not plan, or a step before the one it needs, is ignored.
func FoldRun(d *RunDoc) *RunState {
	s := &RunState{Tickets: map[int]*TicketRun{}, Baseline: map[string]Baseline{}, Ready: map[int]bool{}}
	for _, t := range d.Header.Tickets {
		s.Tickets[t.Number] = &TicketRun{RunTicket: t, State: StateNotStarted, Receipts: []engine.Receipt{}}
	}
	for _, e := range d.Events {
		if e.Agent != nil {
			s.Agent = agent.Sum(s.Agent, *e.Agent)
			if t := s.Tickets[e.Ticket]; t != nil && e.Ticket != 0 {
				t.Agent = agent.Sum(t.Agent, *e.Agent)
			}
		}
		if t := s.Tickets[e.Ticket]; t != nil && e.Ticket != 0 {
			foldTicket(s, t, e)
			continue
		}
		if e.Ticket == 0 {
			foldRunEvent(s, e)
		}
	}
	return s
}

// foldTicket folds an event of ticket t.
func foldTicket(s *RunState, t *TicketRun, e RunEvent) {
	switch e.Kind {
	case evCut:
		*t = TicketRun{RunTicket: t.RunTicket, State: StateWorking, Base: e.Base, BaseBranch: e.BaseBranch, Receipts: []engine.Receipt{}}
	case evCollected:
		t.SHA = e.SHA
		t.State = StateGating
	case evReceipt:
		t.Receipts = append(t.Receipts, receiptOf(e))
	case evReview:
		t.Rounds = e.Round
	case evVerdict:
		if e.Status == "rejected" {
			t.Rejected = append(t.Rejected, e.Finding+" (rejected: "+e.Reason+")")
		}
	case evDropped:
		t.Dropped = append(t.Dropped, e.Finding)
	case evUnresolved:
		t.Unresolved = append(t.Unresolved, e.Finding)
	case evRebased:
		t.Base, t.BaseBranch, t.SHA, t.Rebased = e.Base, e.BaseBranch, e.SHA, true
	case evPublishing:
		t.State, t.SHA, t.BaseBranch, t.InLane = StatePublishing, e.SHA, e.BaseBranch, true
	case evDecisions:
		t.Decisions = e.Reason
	case evPushed:
		t.Pushed = true
	case evPR:
		t.PR, t.URL, t.NodeID = e.PR, e.URL, e.NodeID
	case evStacked:
		t.Stacked = true
		s.Stack = e.Stack
	case evPublished:
		t.State, t.SHA, t.PR, t.URL = StatePublished, e.SHA, e.PR, e.URL
		if !slices.Contains(s.Published, t.Number) {
			s.Published = append(s.Published, t.Number)
		}
	case evSubsumed:
		t.State = StateSubsumed
	case evHalted:
		t.State, t.Reason = e.Status, e.Reason
		s.Halted = e.Reason
	case evPriorFinished:
		t.State, t.Reason = StateFinishedPrior, e.Reason
	default:
		foldRunEvent(s, e)
	}
}

// foldRunEvent folds an event of the run as a whole (Ticket 0): the
// baseline, the whole-stack review, the stack, prior work, integration.
func foldRunEvent(s *RunState, e RunEvent) {
	switch e.Kind {
	case evBaseline:
		s.Baseline[e.Command] = Baseline{Command: e.Command, ExitCode: e.ExitCode, Output: e.Output}
	case evReceipt:
		s.ReviewReceipts = append(s.ReviewReceipts, receiptOf(e))
	case evVerdict:
		switch e.Status {
		case "rejected":
			s.ReviewRejected = append(s.ReviewRejected, e.Finding+" (rejected: "+e.Reason+")")
		case "none":
			s.ReviewNoVerdict = append(s.ReviewNoVerdict, e.Finding)
		}
	case evStacked:
		// finalize's reconciliation registers the whole stack.
		s.Stack = e.Stack
	case evHalted:
		s.Halted = e.Reason
	case evResumed:
		s.Halted = ""
	case evReady:
		s.Ready[e.PR] = true
	case evFinalized:
		s.Finalized = e.Status
		if e.Status == "open" {
			s.Finalized = FinalIncomplete // an older ledger's word
		}
	case evStackReview:
		s.Review = e.Status
	case evPriorGraphed:
		s.Prior.Graphed = true
	case evPriorPushed:
		s.Prior.Pushed = true
	case evPriorPR:
		s.Prior.PR, s.Prior.URL, s.Prior.NodeID = e.PR, e.URL, e.NodeID
	case evIntegrating:
		s.Integration = &IntegrationRun{Branch: e.Command, SHA: e.SHA, BaseBranch: e.BaseBranch}
	case evIntegrationPushed:
		if s.Integration != nil {
			s.Integration.Pushed = true
		}
	case evIntegrationPR:
		if s.Integration != nil {
			s.Integration.PR, s.Integration.URL, s.Integration.NodeID = e.PR, e.URL, e.NodeID
		}
	case evIntegrationStacked:
		if s.Integration != nil {
			s.Integration.Stacked = true
		}
		s.Stack = e.Stack
	}
}

// receiptOf is a validation command's event as the engine's receipt.
func receiptOf(e RunEvent) engine.Receipt {
	return engine.Receipt{Command: e.Command, ExitCode: e.ExitCode, Commit: e.SHA,
		Passed: e.Status == "passed", Waived: e.Status == "waived", Stage: e.Stage}
}

// TicketBranch is the branch ticket n is built on.
func TicketBranch(n int) string { return "ticket/" + itoa(n) }
