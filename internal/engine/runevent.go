package engine

import (
	"reflect"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/agent"
)

// gh-specstack's run ledger (run.toml) holds the engine's events too,
// Event.Task being the ticket's number (0: the run as a whole). It keeps
// the stored form it has had since its first release: runRecord, whose
// keys differ from the engine ledger's (ticket, sha, base_branch, a
// findings count), so it is a vocabulary of its own; the payload types
// are the engine's, folded by FoldRun (runfold.go).

// RunEvent is an event of a gh-specstack run's ledger: the engine's
// Event, stored in that ledger's form.
type RunEvent struct{ Event }

// StoredForm is the event's stored form (ledger.Stored).
func (e RunEvent) StoredForm() any { return runVocab().store(e.Event).Interface() }

// Restore decodes an event from its stored form (ledger.Restorer).
func (e *RunEvent) Restore(decode func(v any) error) error {
	var r runRecord
	if err := decode(&r); err != nil {
		return err
	}
	e.Event = runVocab().load(reflect.ValueOf(r))
	return nil
}

// runRecord is a run event as stored: its keys, types and order are the
// run ledger's format since its first release (Commit, Job and RunID,
// last, for the payloads shared with the engine's ledger).
type runRecord struct {
	At         time.Time    `toml:"at"`
	Kind       string       `toml:"kind"`
	Ticket     int          `toml:"ticket,omitempty"`
	Role       string       `toml:"role,omitempty"`
	Command    string       `toml:"command,omitempty"`
	ExitCode   int          `toml:"exit_code,omitempty"`
	Output     string       `toml:"output,omitempty"`
	SHA        string       `toml:"sha,omitempty"`
	Base       string       `toml:"base,omitempty"`
	BaseBranch string       `toml:"base_branch,omitempty"`
	Status     string       `toml:"status,omitempty"`
	Stage      string       `toml:"stage,omitempty"`
	Round      int          `toml:"round,omitempty"`
	Finding    string       `toml:"finding,omitempty"`
	Findings   int          `toml:"findings,omitempty"`
	Reason     string       `toml:"reason,omitempty"`
	PR         int          `toml:"pr,omitempty"`
	URL        string       `toml:"url,omitempty"`
	NodeID     string       `toml:"node_id,omitempty"`
	Stack      int          `toml:"stack,omitempty"`
	Agent      *agent.Usage `toml:"agent,omitempty"`
	Commit     string       `toml:"commit,omitempty"`
	Job        string       `toml:"job,omitempty"`
	RunID      int64        `toml:"run_id,omitzero"`
	Answer     string       `toml:"answer,omitempty"`
	LogEnd     string       `toml:"log_end,omitempty"`
}

// runPayloads is the run ledger's conversion table.
var runPayloads = []Payload{
	CommandBaselined{}, Cut{}, Worked{}, DecisionsNoted{}, TicketCollected{}, TicketReceipt{},
	RoundReviewed{}, VerdictGiven{}, FindingDropped{}, FindingUnresolved{}, Rebased{}, Publishing{},
	TicketPushed{}, TicketPR{}, Stacked{}, Published{}, Subsumed{}, Halted{}, Resumed{}, Ready{},
	Finalized{}, StackReviewed{}, Integrating{}, IntegrationPushed{}, IntegrationPR{},
	IntegrationStacked{}, PriorFinished{}, PriorGraphed{}, PriorPushed{}, PriorPR{},
	RemoteDispatching{}, RemoteDispatched{}, RemoteFinished{}, RemoteSettled{},
}

// runVocab is built on first use, as engineVocab is.
var runVocab = sync.OnceValue(func() *vocabulary { return newVocabulary(reflect.TypeFor[runRecord](), "ticket", runPayloads) })

// The payloads of gh-specstack's run: a ticket's job (cut, worked,
// collected, its receipts and its gate's rounds), its publish lane and
// the stack's (the whole-stack review, the integration pull request,
// prior work, finalize).
type (
	// CommandBaselined: a per-change command ran at the pinned base.
	CommandBaselined struct {
		Command  string `flat:"command"`
		ExitCode int    `flat:"exit_code"`
		Output   string `flat:"output"`
	}
	// Cut: the ticket's work started from Base (on BaseBranch).
	Cut struct {
		Base       string `flat:"base"`
		BaseBranch string `flat:"base_branch"`
	}
	// Worked: a worker (Event.Role) ended, in gate round Round.
	Worked struct {
		ExitCode int          `flat:"exit_code"`
		Round    int          `flat:"round"`
		Agent    *agent.Usage `flat:"agent"`
	}
	// DecisionsNoted: the "## Decisions" of the worker's report.
	DecisionsNoted struct {
		Text string `flat:"reason"`
	}
	// TicketCollected: the ticket's work is SHA ("" when it adds
	// nothing).
	TicketCollected struct {
		SHA string `flat:"sha"`
	}
	// TicketReceipt: a validation command ran at SHA (Status passed,
	// waived or failed), at Stage.
	TicketReceipt struct {
		Command  string `flat:"command"`
		ExitCode int    `flat:"exit_code"`
		SHA      string `flat:"sha"`
		Status   string `flat:"status"`
		Stage    string `flat:"stage"`
	}
	// RoundReviewed: the gate's review round Round ended (Status passed
	// or blocked, with Findings blocking findings).
	RoundReviewed struct {
		Round    int    `flat:"round"`
		Status   string `flat:"status"`
		Findings int    `flat:"findings"`
	}
	// VerdictGiven: the fixer's verdict on Finding (Status fixed,
	// rejected or none).
	VerdictGiven struct {
		Round   int    `flat:"round"`
		Status  string `flat:"status"`
		Finding string `flat:"finding"`
		Reason  string `flat:"reason"`
	}
	// FindingDropped: a re-raised rejected finding was dropped.
	FindingDropped struct {
		Round   int    `flat:"round"`
		Finding string `flat:"finding"`
		Reason  string `flat:"reason"`
	}
	// FindingUnresolved: Finding was still open after the last round.
	FindingUnresolved struct {
		Round   int    `flat:"round"`
		Finding string `flat:"finding"`
	}
	// Rebased: the ticket's work was rebased onto Base (BaseBranch): SHA.
	Rebased struct {
		Base       string `flat:"base"`
		BaseBranch string `flat:"base_branch"`
		SHA        string `flat:"sha"`
	}
	// Publishing: the publish lane took the ticket at SHA, on
	// BaseBranch; its push may happen from here on.
	Publishing struct {
		SHA        string `flat:"sha"`
		BaseBranch string `flat:"base_branch"`
	}
	// TicketPushed: the ticket's branch was pushed at SHA.
	TicketPushed struct {
		SHA string `flat:"sha"`
	}
	// TicketPR: the ticket's pull request.
	TicketPR struct {
		Number int    `flat:"pr"`
		URL    string `flat:"url"`
		NodeID string `flat:"node_id"`
	}
	// Stacked: the native stack Stack holds the layer (Task 0: finalize
	// registered the whole stack).
	Stacked struct {
		Stack int `flat:"stack"`
	}
	// Published: the ticket is published at SHA as pull request Number.
	Published struct {
		SHA    string `flat:"sha"`
		Number int    `flat:"pr"`
		URL    string `flat:"url"`
	}
	// Subsumed: the ticket's work was already in the stack.
	Subsumed struct{}
	// Ready: pull request Number was marked ready for review.
	Ready struct {
		Number int `flat:"pr"`
	}
	// Finalized: the run ended (Status complete, incomplete or aborted; "open" in
	// older ledgers).
	Finalized struct {
		Status string `flat:"status"`
	}
	// StackReviewed: the whole-stack review's outcome (Status passed,
	// blocked or fixed; Findings blocking findings).
	StackReviewed struct {
		Status   string `flat:"status"`
		Findings int    `flat:"findings"`
	}
	// Integrating: the integration branch Branch holds the review's
	// fixes at SHA, on BaseBranch; it may be pushed from here on.
	Integrating struct {
		Branch     string `flat:"command"` // stored as command, as every release has
		SHA        string `flat:"sha"`
		BaseBranch string `flat:"base_branch"`
	}
	// PriorFinished: the graph step found the ticket (Event.Task)
	// finished on the prior work; Evidence is the worker's.
	PriorFinished struct {
		Evidence string `flat:"reason"`
	}
	// PriorGraphed: the prior work's graph step is over.
	PriorGraphed struct{}
)

// The integration's and prior work's steps have the ticket's shapes.
type (
	IntegrationPushed  TicketPushed
	IntegrationPR      TicketPR
	IntegrationStacked Stacked
	PriorPushed        TicketPushed
	PriorPR            TicketPR
)

// Kinds of gh-specstack's run events (its ledger's stored kinds).
const (
	EvRunBaseline        = "baseline"
	EvCut                = "cut"
	EvWorked             = "worked"
	EvDecisions          = "decisions"
	EvTicketCollected    = "collected"
	EvTicketReceipt      = "receipt"
	EvGateReview         = "review"
	EvVerdict            = "verdict"
	EvDropped            = "dropped"
	EvUnresolved         = "unresolved"
	EvRebased            = "rebased"
	EvPublishing         = "publishing"
	EvTicketPushed       = "pushed"
	EvTicketPR           = "pr"
	EvStacked            = "stacked"
	EvPublished          = "published"
	EvSubsumed           = "subsumed"
	EvReady              = "ready"
	EvFinalized          = "finalized"
	EvStackReview        = "stack-review"
	EvIntegrating        = "integrating"
	EvIntegrationPushed  = "integration-pushed"
	EvIntegrationPR      = "integration-pr"
	EvIntegrationStacked = "integration-stacked"
	EvPriorFinished      = "prior-finished"
	EvPriorGraphed       = "prior-graphed"
	EvPriorPushed        = "prior-pushed"
	EvPriorPR            = "prior-pr"
)

func (CommandBaselined) Kind() string   { return EvRunBaseline }
func (Cut) Kind() string                { return EvCut }
func (Worked) Kind() string             { return EvWorked }
func (DecisionsNoted) Kind() string     { return EvDecisions }
func (TicketCollected) Kind() string    { return EvTicketCollected }
func (TicketReceipt) Kind() string      { return EvTicketReceipt }
func (RoundReviewed) Kind() string      { return EvGateReview }
func (VerdictGiven) Kind() string       { return EvVerdict }
func (FindingDropped) Kind() string     { return EvDropped }
func (FindingUnresolved) Kind() string  { return EvUnresolved }
func (Rebased) Kind() string            { return EvRebased }
func (Publishing) Kind() string         { return EvPublishing }
func (TicketPushed) Kind() string       { return EvTicketPushed }
func (TicketPR) Kind() string           { return EvTicketPR }
func (Stacked) Kind() string            { return EvStacked }
func (Published) Kind() string          { return EvPublished }
func (Subsumed) Kind() string           { return EvSubsumed }
func (Ready) Kind() string              { return EvReady }
func (Finalized) Kind() string          { return EvFinalized }
func (StackReviewed) Kind() string      { return EvStackReview }
func (Integrating) Kind() string        { return EvIntegrating }
func (IntegrationPushed) Kind() string  { return EvIntegrationPushed }
func (IntegrationPR) Kind() string      { return EvIntegrationPR }
func (IntegrationStacked) Kind() string { return EvIntegrationStacked }
func (PriorFinished) Kind() string      { return EvPriorFinished }
func (PriorGraphed) Kind() string       { return EvPriorGraphed }
func (PriorPushed) Kind() string        { return EvPriorPushed }
func (PriorPR) Kind() string            { return EvPriorPR }
func (CommandBaselined) payload()       {}
func (Cut) payload()                    {}
func (Worked) payload()                 {}
func (DecisionsNoted) payload()         {}
func (TicketCollected) payload()        {}
func (TicketReceipt) payload()          {}
func (RoundReviewed) payload()          {}
func (VerdictGiven) payload()           {}
func (FindingDropped) payload()         {}
func (FindingUnresolved) payload()      {}
func (Rebased) payload()                {}
func (Publishing) payload()             {}
func (TicketPushed) payload()           {}
func (TicketPR) payload()               {}
func (Stacked) payload()                {}
func (Published) payload()              {}
func (Subsumed) payload()               {}
func (Ready) payload()                  {}
func (Finalized) payload()              {}
func (StackReviewed) payload()          {}
func (Integrating) payload()            {}
func (IntegrationPushed) payload()      {}
func (IntegrationPR) payload()          {}
func (IntegrationStacked) payload()     {}
func (PriorFinished) payload()          {}
func (PriorGraphed) payload()           {}
func (PriorPushed) payload()            {}
func (PriorPR) payload()                {}
