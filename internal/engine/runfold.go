package engine

import (
	"slices"

	"github.com/specstack/specstack/internal/agent"
)

// gh-specstack's run, folded: each ticket's job (the engine's steps:
// cut, worked, collected, receipts, the gate's rounds, halted) and, on
// top, what its publish lane and finalize recorded. The frontier, the
// lane and finalize themselves are gh-specstack's (package stack).

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
// An aborted run (gh specstack abort) ended by a person's choice: nothing
// of it goes on, and what reached GitHub stays there.
const (
	FinalComplete   = "complete"
	FinalIncomplete = "incomplete"
	FinalAborted    = "aborted"
)

// Ticket is one planned ticket of a run with its recipe.
type Ticket struct {
	Number    int      `toml:"number" json:"number"`
	Title     string   `toml:"title" json:"title"`
	Body      string   `toml:"body" json:"-"`
	Layer     int      `toml:"layer" json:"layer"`
	Position  int      `toml:"position" json:"-"`
	BlockedBy []int    `toml:"blocked_by" json:"blocked_by"`
	PerChange []string `toml:"per_change" json:"per_change"`
	AtReview  []string `toml:"at_review,omitempty" json:"at_review,omitempty"`
}

// Baseline is a per-change command measured at the pinned base.
type Baseline struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output,omitempty"` // the end of what it printed, when it failed
}

// TicketRun is what the events say about one ticket.
type TicketRun struct {
	Ticket
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
	InLane    bool      `json:"-"`
	Rebased   bool      `json:"rebased,omitempty"`
	Decisions string    `json:"decisions,omitempty"`
	Stacked   bool      `json:"-"`
	Receipts  []Receipt `json:"receipts"`
	// Agent is what the ticket's agent jobs spent.
	Agent      *agent.Usage `json:"agent,omitempty"`
	Rounds     int          `json:"gate_rounds,omitempty"`
	Rejected   []string     `json:"rejected,omitempty"`
	Dropped    []string     `json:"dropped,omitempty"`
	Unresolved []string     `json:"unresolved,omitempty"`
	// Remote is the ticket's newest job on an executor (nil: none).
	Remote *RemoteRun `json:"remote,omitempty"`
}

// RunState is the fold of a run's events.
type RunState struct {
	Tickets   map[int]*TicketRun
	Baseline  map[string]Baseline
	Published []int // bottom first
	Stack     int   // the native stack, 0 before it is registered
	Halted    string
	Ready     map[int]bool
	Finalized string // "", complete, incomplete or aborted
	// Review is the whole-stack review's outcome: "" (not run), passed,
	// blocked (findings and no fix to publish) or fixed.
	Review          string
	ReviewReceipts  []Receipt
	ReviewNoVerdict []string // blocking findings of the review the fixer gave no verdict
	ReviewRejected  []string
	Integration     *IntegrationRun
	Prior           PriorRun
	// Agent sums what the run's agent jobs spent (nil: none ran).
	Agent *agent.Usage
	// Remote is the whole-stack fixer's newest job on an executor.
	Remote *RemoteRun
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

// FoldRun derives a run's state from its planned tickets and its events.
// It is total: any event list folds without a panic; an event naming a
// ticket not planned, or a step before the one it needs, is ignored.
func FoldRun(tickets []Ticket, events []RunEvent) *RunState {
	s := &RunState{Tickets: map[int]*TicketRun{}, Baseline: map[string]Baseline{}, Ready: map[int]bool{}}
	for _, t := range tickets {
		s.Tickets[t.Number] = &TicketRun{Ticket: t, State: StateNotStarted, Receipts: []Receipt{}}
	}
	for _, e := range events {
		if u := e.Agent(); u != nil {
			s.Agent = agent.Sum(s.Agent, *u)
			if t := s.Tickets[e.Task]; t != nil && e.Task != 0 {
				t.Agent = agent.Sum(t.Agent, *u)
			}
		}
		if t := s.Tickets[e.Task]; t != nil && e.Task != 0 {
			s.foldTicket(t, e.Event)
			continue
		}
		if e.Task == 0 {
			s.foldRun(e.Event)
		}
	}
	return s
}

// foldTicket folds an event of ticket t.
func (s *RunState) foldTicket(t *TicketRun, e Event) {
	switch p := e.Payload.(type) {
	case Cut:
		*t = TicketRun{Ticket: t.Ticket, State: StateWorking, Base: p.Base, BaseBranch: p.BaseBranch, Receipts: []Receipt{}}
	case TicketCollected:
		t.SHA = p.SHA
		t.State = StateGating
	case TicketReceipt:
		t.Receipts = append(t.Receipts, p.receipt())
	case RoundReviewed:
		t.Rounds = p.Round
	case VerdictGiven:
		if p.Status == "rejected" {
			t.Rejected = append(t.Rejected, p.Finding+" (rejected: "+p.Reason+")")
		}
	case FindingDropped:
		t.Dropped = append(t.Dropped, p.Finding)
	case FindingUnresolved:
		t.Unresolved = append(t.Unresolved, p.Finding)
	case Rebased:
		t.Base, t.BaseBranch, t.SHA, t.Rebased = p.Base, p.BaseBranch, p.SHA, true
	case Publishing:
		t.State, t.SHA, t.BaseBranch, t.InLane = StatePublishing, p.SHA, p.BaseBranch, true
	case DecisionsNoted:
		t.Decisions = p.Text
	case TicketPushed:
		t.Pushed = true
	case TicketPR:
		t.PR, t.URL, t.NodeID = p.Number, p.URL, p.NodeID
	case Stacked:
		t.Stacked = true
		s.Stack = p.Stack
	case Published:
		t.State, t.SHA, t.PR, t.URL = StatePublished, p.SHA, p.Number, p.URL
		if !slices.Contains(s.Published, t.Number) {
			s.Published = append(s.Published, t.Number)
		}
	case Subsumed:
		t.State = StateSubsumed
	case Halted:
		t.State, t.Reason = p.Status, p.Reason
		s.Halted = p.Reason
	case PriorFinished:
		t.State, t.Reason = StateFinishedPrior, p.Evidence
	case RemoteDispatching, RemoteDispatched, RemoteFinished, RemoteSettled:
		t.Remote = FoldRemote(t.Remote, p)
	default:
		s.foldRun(e)
	}
}

// foldRun folds an event of the run as a whole (Task 0): the baseline,
// the whole-stack review, the stack, prior work, integration.
func (s *RunState) foldRun(e Event) {
	switch p := e.Payload.(type) {
	case RemoteDispatching, RemoteDispatched, RemoteFinished, RemoteSettled:
		s.Remote = FoldRemote(s.Remote, p)
	case CommandBaselined:
		s.Baseline[p.Command] = Baseline(p)
	case TicketReceipt:
		s.ReviewReceipts = append(s.ReviewReceipts, p.receipt())
	case VerdictGiven:
		switch p.Status {
		case "rejected":
			s.ReviewRejected = append(s.ReviewRejected, p.Finding+" (rejected: "+p.Reason+")")
		case "none":
			s.ReviewNoVerdict = append(s.ReviewNoVerdict, p.Finding)
		}
	case Stacked:
		// finalize's reconciliation registers the whole stack.
		s.Stack = p.Stack
	case Halted:
		s.Halted = p.Reason
	case Resumed:
		s.Halted = ""
	case Ready:
		s.Ready[p.Number] = true
	case Finalized:
		// Complete fails closed: any word but complete and aborted (an
		// older ledger's "open", or one no version wrote) is incomplete.
		s.Finalized = FinalIncomplete
		if p.Status == FinalComplete || p.Status == FinalAborted {
			s.Finalized = p.Status
		}
	case StackReviewed:
		s.Review = p.Status
	case PriorGraphed:
		s.Prior.Graphed = true
	case PriorPushed:
		s.Prior.Pushed = true
	case PriorPR:
		s.Prior.PR, s.Prior.URL, s.Prior.NodeID = p.Number, p.URL, p.NodeID
	case Integrating:
		s.Integration = &IntegrationRun{Branch: p.Branch, SHA: p.SHA, BaseBranch: p.BaseBranch}
	case IntegrationPushed:
		if s.Integration != nil {
			s.Integration.Pushed = true
		}
	case IntegrationPR:
		if s.Integration != nil {
			s.Integration.PR, s.Integration.URL, s.Integration.NodeID = p.Number, p.URL, p.NodeID
		}
	case IntegrationStacked:
		if s.Integration != nil {
			s.Integration.Stacked = true
		}
		s.Stack = p.Stack
	}
}

// receipt is a validation command's event as the engine's receipt.
func (p TicketReceipt) receipt() Receipt {
	return Receipt{Command: p.Command, ExitCode: p.ExitCode, Commit: p.SHA,
		Passed: p.Status == "passed", Waived: p.Status == "waived", Stage: p.Stage}
}
