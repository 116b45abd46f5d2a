package engine

import (
	"time"

	"github.com/specstack/specstack/internal/agent"
)

// Event is one line of the run's history: when it happened, the task,
// wave and role it concerns (0 and "" when it concerns none), and its
// payload, one type per kind. Readers switch on the payload's type.
//
// On disk an event is one [[event]] table of flat keys, the same for
// every kind (see eventcodec.go); that form is only the codec's.
type Event struct {
	At      time.Time
	Task    int
	Wave    int
	Role    string
	Payload Payload
}

// Kind is the event's kind (EvProvisioned, …), its payload's.
func (e Event) Kind() string {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.Kind()
}

// Agent is what an agent preset said the event's job spent (a
// collection's or a receipt's); nil when none.
func (e Event) Agent() *agent.Usage {
	switch p := e.Payload.(type) {
	case Collected:
		return p.Agent
	case ReceiptRecorded:
		return p.Agent
	case Worked:
		return p.Agent
	case Unknown:
		switch r := p.rec.(type) {
		case record:
			return r.Agent
		case runRecord:
			return r.Agent
		}
		// authorRecord: an authoring run records no usage.
	}
	return nil
}

// Payload is what an event of one kind records: one of the types below.
type Payload interface {
	// Kind is the kind stored for the event.
	Kind() string
	payload()
}

// Unknown is the payload of a kind this build does not know (written by
// a newer one): kept as it was stored, so that rewriting the ledger
// keeps it and a log shows it.
type Unknown struct {
	Name string // the stored kind
	rec  any    // its record, as stored (record or runRecord)
}

// The payloads of the engine's kinds. The flat tag names the key each
// field is stored under.
type (
	// Provisioned: the task's workspace was created.
	Provisioned struct {
		Workspace string   `flat:"workspace"`
		Path      string   `flat:"path"`
		Base      []string `flat:"base"`
		Reason    string   `flat:"reason"`
	}
	// Dispatched: a worker (Event.Role) was started.
	Dispatched struct {
		Reason string `flat:"reason"`
	}
	// Collected: what the worker left; Status says how it ended.
	Collected struct {
		Status   string       `flat:"status"`
		Reason   string       `flat:"reason"`
		Change   string       `flat:"change"`
		Changes  []string     `flat:"changes"`
		Commit   string       `flat:"commit"` // the newest commit of Change
		Files    []string     `flat:"files"`
		Lines    int          `flat:"lines"`
		ExitCode int          `flat:"exit_code"`
		Agent    *agent.Usage `flat:"agent"`
	}
	// Leaked: the task's edits landed in the orchestrating workspace.
	Leaked struct {
		Files  []string `flat:"files"`
		Reason string   `flat:"reason"`
	}
	// IntegrityFailed: the orchestrating workspace changed under the run.
	IntegrityFailed struct {
		Files  []string `flat:"files"`
		Reason string   `flat:"reason"`
	}
	// Tested: the task's tests ran (Status passed|failed|no-test-surface).
	Tested struct {
		Status   string `flat:"status"`
		Commands string `flat:"reason"` // the commands run, joined by "; "
	}
	// NoTestSurface: no test command covers the wave's files.
	NoTestSurface struct {
		Reason string `flat:"reason"`
	}
	// PassedReview: a verdict that passed (Status ReviewSkipped when no
	// reviewer judged).
	PassedReview struct {
		Status   string `flat:"status"`
		Reason   string `flat:"reason"`
		Other    int    `flat:"other"`
		Findings string `flat:"findings"` // path of the findings file
	}
	// FailedReview: a verdict with blocking findings.
	FailedReview struct {
		Critical  int    `flat:"critical"`
		Important int    `flat:"important"`
		Other     int    `flat:"other"`
		Findings  string `flat:"findings"`
	}
	// Fixing: a fix started from Commit.
	Fixing struct {
		Commit  string `flat:"commit"`
		Attempt int    `flat:"attempt"`
	}
	// Released: the task's workspace was forgotten.
	Released struct {
		Workspace string `flat:"workspace"`
	}
	// Squashing: the task's changes are being squashed into @.
	Squashing struct {
		Changes []string `flat:"changes"`
	}
	// Squashed: the task is in @.
	Squashed struct {
		Reason string `flat:"reason"`
	}
	// SquashedTogether: one operation (Op, by which it is taken back)
	// squashed the wave's tasks (BatchIntegrator).
	SquashedTogether struct {
		Op string `flat:"op"`
	}
	// Conflicted: squashing the task left conflicts in Files.
	Conflicted struct {
		Files []string `flat:"files"`
	}
	// Resolved: the task's conflicts were resolved.
	Resolved struct {
		Files  []string `flat:"files"`
		Reason string   `flat:"reason"`
	}
	// FannedIn: the wave is in @.
	FannedIn struct{}
	// Baselined: the integrity check compares against Commit from now on.
	Baselined struct {
		Commit string `flat:"commit"`
		Reason string `flat:"reason"`
	}
	// Gated: the final gate (Status passed|failed|none); Note is why it
	// failed or ran nothing, or the command, when it passed.
	Gated struct {
		Status string `flat:"status"`
		Note   string `flat:"reason"`
	}
	// Halted: the run stopped for a person; Commit is @ then, when known.
	// In gh-specstack's run, Event.Task is the ticket that stopped it
	// (0: the run) and Status the ticket's state then.
	Halted struct {
		Commit string `flat:"commit"`
		Reason string `flat:"reason"`
		Status string `flat:"status"`
	}
	// Resumed: a person resumed the run.
	Resumed struct{}
	// Completed: the run is complete; Commit is @ then.
	Completed struct {
		Commit string `flat:"commit"`
	}
	// Aborted: the run was undone to operation Op.
	Aborted struct {
		Op string `flat:"op"`
	}
	// ReceiptRecorded: a gate's evidence (Event.Role ran it); Reused: an
	// earlier passing receipt was reused instead of running.
	ReceiptRecorded struct {
		Command  string       `flat:"command"`
		ExitCode int          `flat:"exit_code"`
		Digest   string       `flat:"digest"` // sha256 of its output
		Tree     string       `flat:"tree"`
		Reused   bool         // stored as reason "reused"
		Agent    *agent.Usage `flat:"agent"`
	}
	// ConfidenceOverridden: a reviewer's confidence was below the
	// threshold and a person let the run pass anyway (Reason says why).
	ConfidenceOverridden struct {
		Findings string `flat:"findings"`
		Reason   string `flat:"reason"`
	}
)

// The payloads of jj-openspec apply's tail, recorded in the same ledger
// after the workers' phases (Runner.Record; Fold ignores them, BuildLog
// shows them).
type (
	// SpecsMerged: the change's delta specs were merged forward onto main
	// specs edited since its base (Files: the rewritten files; Status
	// clean or conflicts).
	SpecsMerged struct {
		Status string   `flat:"status"`
		Files  []string `flat:"files"`
	}
	// Verified: the verify gate ran (Status passed|failed); Note is the
	// commands run, or why it failed.
	Verified struct {
		Status string `flat:"status"`
		Note   string `flat:"reason"`
	}
	// Ticked: tasks ticked by facts.
	Ticked struct {
		Tasks []string `flat:"files"` // the task ids
	}
	// Archiving is recorded before the archive runs: a run killed before
	// Archived finds by it that the archive it started is done.
	Archiving struct {
		Name string `flat:"reason"` // stored as reason, as every release has
	}
	// Archived: the change was archived as Name (the archive folder's).
	Archived struct {
		Name string `flat:"reason"`
	}
	// Bookmarked: Bookmark was set to Commit.
	Bookmarked struct {
		Bookmark string `flat:"reason"`
		Commit   string `flat:"commit"`
	}
	// Pushed: Commit was pushed (Status pushed|already-published).
	Pushed struct {
		Status string `flat:"status"`
		Commit string `flat:"commit"`
	}
	// PROpened: the pull request Number at URL was created or updated
	// (Action).
	PROpened struct {
		Action string `flat:"status"`
		URL    string `flat:"reason"`
		Number int    `flat:"pr"` // ledgers written before pr: exit_code
	}
	// TrackerRan: the tracker command ran (Status passed|failed).
	TrackerRan struct {
		Status   string `flat:"status"`
		Command  string `flat:"command"`
		ExitCode int    `flat:"exit_code"`
	}
	// Applied: apply ended (Status: how far it went), at Commit.
	Applied struct {
		Status string `flat:"status"`
		Commit string `flat:"commit"`
	}
)

// Kinds of apply's tail events.
const (
	EvApplySpecsMerged = "apply-specs-merged"
	EvApplyVerify      = "apply-verify"
	EvApplyTicked      = "apply-ticked"
	EvApplyArchiving   = "apply-archiving"
	EvApplyArchived    = "apply-archived"
	EvApplyBookmark    = "apply-bookmark"
	EvApplyPushed      = "apply-pushed"
	EvApplyPR          = "apply-pr"
	EvApplyTracker     = "apply-tracker"
	EvApplyDone        = "apply-done"
)

func (p Unknown) Kind() string            { return p.Name }
func (Provisioned) Kind() string          { return EvProvisioned }
func (Dispatched) Kind() string           { return EvDispatched }
func (Collected) Kind() string            { return EvCollected }
func (Leaked) Kind() string               { return EvLeak }
func (IntegrityFailed) Kind() string      { return EvIntegrityFailed }
func (Tested) Kind() string               { return EvTests }
func (NoTestSurface) Kind() string        { return EvNoTestSurface }
func (PassedReview) Kind() string         { return EvReviewPassed }
func (FailedReview) Kind() string         { return EvReviewFailed }
func (Fixing) Kind() string               { return EvFixing }
func (Released) Kind() string             { return EvReleased }
func (Squashing) Kind() string            { return EvSquashing }
func (Squashed) Kind() string             { return EvSquashed }
func (SquashedTogether) Kind() string     { return EvSquashedTogether }
func (Conflicted) Kind() string           { return EvConflict }
func (Resolved) Kind() string             { return EvResolved }
func (FannedIn) Kind() string             { return EvFannedIn }
func (Baselined) Kind() string            { return EvBaseline }
func (Gated) Kind() string                { return EvGate }
func (Halted) Kind() string               { return EvHalted }
func (Resumed) Kind() string              { return EvResumed }
func (Completed) Kind() string            { return EvComplete }
func (Aborted) Kind() string              { return EvAborted }
func (ReceiptRecorded) Kind() string      { return EvReceipt }
func (ConfidenceOverridden) Kind() string { return EvConfidenceOverride }
func (SpecsMerged) Kind() string          { return EvApplySpecsMerged }
func (Verified) Kind() string             { return EvApplyVerify }
func (Ticked) Kind() string               { return EvApplyTicked }
func (Archiving) Kind() string            { return EvApplyArchiving }
func (Archived) Kind() string             { return EvApplyArchived }
func (Bookmarked) Kind() string           { return EvApplyBookmark }
func (Pushed) Kind() string               { return EvApplyPushed }
func (PROpened) Kind() string             { return EvApplyPR }
func (TrackerRan) Kind() string           { return EvApplyTracker }
func (Applied) Kind() string              { return EvApplyDone }
func (Unknown) payload()                  {}
func (Provisioned) payload()              {}
func (Dispatched) payload()               {}
func (Collected) payload()                {}
func (Leaked) payload()                   {}
func (IntegrityFailed) payload()          {}
func (Tested) payload()                   {}
func (NoTestSurface) payload()            {}
func (PassedReview) payload()             {}
func (FailedReview) payload()             {}
func (Fixing) payload()                   {}
func (Released) payload()                 {}
func (Squashing) payload()                {}
func (Squashed) payload()                 {}
func (SquashedTogether) payload()         {}
func (Conflicted) payload()               {}
func (Resolved) payload()                 {}
func (FannedIn) payload()                 {}
func (Baselined) payload()                {}
func (Gated) payload()                    {}
func (Halted) payload()                   {}
func (Resumed) payload()                  {}
func (Completed) payload()                {}
func (Aborted) payload()                  {}
func (ReceiptRecorded) payload()          {}
func (ConfidenceOverridden) payload()     {}
func (SpecsMerged) payload()              {}
func (Verified) payload()                 {}
func (Ticked) payload()                   {}
func (Archiving) payload()                {}
func (Archived) payload()                 {}
func (Bookmarked) payload()               {}
func (Pushed) payload()                   {}
func (PROpened) payload()                 {}
func (TrackerRan) payload()               {}
func (Applied) payload()                  {}
