package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/specstack/specstack/internal/agent"

	"github.com/specstack/specstack/internal/ledger"
)

// Header describes a run; it is written once, when the run starts.
type Header struct {
	Binary    string    `toml:"binary"`
	RunID     string    `toml:"run_id"`
	Plan      string    `toml:"plan"` // plan path, or "ad-hoc"
	Workspace string    `toml:"workspace"`
	Root      string    `toml:"root"`
	Started   time.Time `toml:"started"`
	// Parents are the change IDs of @- at start: wave 1's base.
	Parents []string `toml:"parents"`
	// Target is the change ID of the orchestrating workspace's @ at start,
	// where approved work is squashed (later waves start from @ as it is
	// when they are provisioned).
	Target string `toml:"target"`
	// StartOp is the operation before the run changed anything: abort
	// restores it.
	StartOp string `toml:"start_op"`
	// Baseline lists the files @ changed at start with their line
	// counts, for people; the integrity check compares trees against
	// BaselineCommit.
	Baseline       string   `toml:"baseline"`
	BaselineCommit string   `toml:"baseline_commit"`
	Tasks          []Task   `toml:"tasks"`
	Waves          [][]int  `toml:"waves"`
	Options        Options  `toml:"options"`
	Warnings       []string `toml:"warnings,omitempty"`
}

// Check is ledger.Checker: what every reader relies on holds (a run ID,
// the operation abort restores, every task numbered once, every task a
// wave or a dependency names recorded, each in one wave), else the
// ledger is damaged.
func (h *Header) Check() error {
	if h.RunID == "" {
		return errors.New("no run_id")
	}
	if h.StartOp == "" {
		return errors.New("no start_op (the operation abort restores)")
	}
	tasks := map[int]bool{}
	for _, t := range h.Tasks {
		if t.Num < 1 {
			return fmt.Errorf("a task numbered %d (tasks are numbered from 1)", t.Num)
		}
		if tasks[t.Num] {
			return fmt.Errorf("task %d is recorded twice", t.Num)
		}
		tasks[t.Num] = true
	}
	for _, t := range h.Tasks {
		for _, d := range t.Deps {
			if !tasks[d] {
				return fmt.Errorf("task %d depends on task %d, which is not recorded", t.Num, d)
			}
		}
	}
	inWave := map[int]int{}
	for i, nums := range h.Waves {
		if len(nums) == 0 {
			return fmt.Errorf("wave %d has no task", i+1)
		}
		for _, n := range nums {
			if !tasks[n] {
				return fmt.Errorf("wave %d names task %d, which is not recorded", i+1, n)
			}
			if w, ok := inWave[n]; ok {
				return fmt.Errorf("task %d is in wave %d and wave %d", n, w, i+1)
			}
			inWave[n] = i + 1
		}
	}
	return nil
}

// Options are the run's settings, fixed at start so resume behaves the
// same.
type Options struct {
	Worker      string            `toml:"worker"`
	Reviewer    string            `toml:"reviewer,omitempty"`
	Test        string            `toml:"test,omitempty"`
	TestMap     map[string]string `toml:"test_map,omitempty"`
	MaxParallel int               `toml:"max_parallel,omitempty"`
	MergeOrder  []int             `toml:"merge_order,omitempty"` // empty: smallest diff first
	SkipReview  bool              `toml:"skip_review,omitempty"`
	Timeout     string            `toml:"timeout,omitempty"` // per worker, a Go duration
	MaxFixes    int               `toml:"max_fixes,omitempty"`
	// MinConfidence: a reviewer's confidence below it blocks ([review]
	// min-confidence); 0 disables the gate.
	MinConfidence int `toml:"min_confidence,omitempty"`
	// WorkspacesDir is the folder the task workspaces are created in
	// (config.WorkspacesDir at start); empty in ledgers written before it
	// was recorded, which use the default.
	WorkspacesDir string `toml:"workspaces_dir,omitempty"`
	// MaxCost stops starting agent jobs once the agents' recorded cost
	// reaches it (USD, --max-cost); 0 means no limit.
	MaxCost float64 `toml:"max_cost,omitempty"`
	// Executor is where workers run: ExecutorLocal ("" too) or
	// ExecutorActions.
	Executor string `toml:"executor,omitempty"`
}

// Event kinds, in the order a task usually meets them. Each is the Kind
// of one payload type (event.go), whose doc says what it records.
const (
	EvProvisioned     = "provisioned"
	EvDispatched      = "dispatched"
	EvCollected       = "collected" // Status says how the worker ended
	EvLeak            = "workspace-leak"
	EvIntegrityFailed = "integrity-failed"
	EvTests           = "tests" // Status passed|failed|no-test-surface
	EvNoTestSurface   = "no-test-surface"
	EvReviewPassed    = "review-passed"
	EvReviewFailed    = "review-failed"
	EvFixing          = "fixing"
	EvReleased        = "released"
	EvSquashing       = "squashing"
	EvSquashed        = "squashed"
	// EvSquashedTogether: one operation squashed the wave's tasks
	// (BatchIntegrator); Op is its ID, by which the squash is taken back.
	EvSquashedTogether = "squashed-together"
	EvConflict         = "fan-in-conflict"
	EvResolved         = "conflict-resolved"
	EvFannedIn         = "fanned-in"
	EvBaseline         = "baseline"
	EvGate             = "gate"   // Status passed|failed|none
	EvHalted           = "halted" // Commit: @ when it halted, when known
	EvResumed          = "resumed"
	EvComplete         = "complete" // Commit: @ when it completed
	EvAborted          = "aborted"
	EvReceipt          = "receipt" // a gate's evidence: Command, ExitCode, Digest, Tree
	// EvConfidenceOverride: a reviewer's confidence was below the
	// threshold and a person let the run pass anyway (Reason says why).
	EvConfidenceOverride = "confidence-override"
)

// StatusBroken is the status of a task whose worker broke what it was
// given or what it was not: a file jj refused to snapshot, its
// workspace's .jj deleted, history rewritten outside its workspace,
// another task's workspace written. The Reason says which.
const StatusBroken = "broken"

// Worker statuses, from the worker's report or its exit.
const (
	StatusDone          = "done"
	StatusConcerns      = "done_with_concerns"
	StatusBlocked       = "blocked"
	StatusNeedsContext  = "needs_context"
	StatusCrashed       = "crashed"  // exited non-zero (or was killed), or without a status in its report
	StatusRejected      = "rejected" // reported done, but its change breaks a rule Runner.Screen checks
	StatusDivergent     = "divergent"
	StatusNoChange      = "lost" // no change found, in the workspace or by description
	GatePassed          = "passed"
	GateFailed          = "failed"
	GateNone            = "none"
	TestNoSurface       = "no-test-surface"
	TestNotRun          = "not-run" // reports only: the task reached fan-in without a test
	ReviewPassed        = "passed"  // a reviewer ran (or a person or agent recorded a pass)
	ReviewFailed        = "failed"
	ReviewSkipped       = "skipped" // --skip-review, or no reviewer command
	SeverityCritical    = "critical"
	SeverityImportant   = "important"
	SeveritySuggestion  = "suggestion"
	SeverityCannotCheck = "cannot-verify"
)

// Doc is a run's ledger document.
type Doc = ledger.Doc[Header, Event]

// TaskState is what the events say about one task.
type TaskState struct {
	Task
	Wave       int
	Workspace  string
	Path       string
	Base       []string
	Dispatched int // how many times a worker was started for it
	Collected  bool
	Status     string
	Reason     string
	Change     string
	Changes    []string
	Files      []string
	Lines      int
	Leak       bool
	Tests      string
	Reviewed   bool   // a verdict exists
	Approved   bool   // the last verdict passed
	Review     string // ReviewPassed, ReviewFailed or ReviewSkipped: the last verdict
	Findings   string
	Notes      int    // non-blocking findings (suggestion, cannot-verify) of the last verdict
	FixFrom    string // commit the current fix started from
	Fixes      int
	Squashing  bool
	Squashed   bool
	Conflict   []string
	Released   bool
	// Agent sums what the task's agent jobs spent (nil: none ran).
	Agent *agent.Usage
	// Remote is the task's newest job on an executor (nil: none).
	Remote *RemoteRun

	// Commit is the newest commit of its change when it was last
	// collected, at CollectedAt: what its workspace held when its
	// worker ended.
	Commit      string
	CollectedAt time.Time
}

// Failed reports whether the worker's result cannot be integrated.
func (t *TaskState) Failed() bool {
	switch t.Status {
	case StatusDone, StatusConcerns:
		return t.Leak
	}
	return t.Collected
}

// State is the fold of a run's events.
type State struct {
	Tasks          map[int]*TaskState
	FannedIn       map[int]bool
	NoTestSurface  map[int]bool
	BaselineCommit string
	// Checkpoint is the newest commit of @ the run recorded (at start,
	// after each fan-in, at a halt, at completion): @ differing from it
	// holds edits made since, which abort would lose.
	Checkpoint string
	Integrity  string // reason of the last failed integrity check, "" when clean
	Gate       string
	GateReason string
	Halted     string
	Complete   bool
	Aborted    bool
	AbortedOp  string
	Receipts   []Receipt // oldest first
	// SquashOps maps a wave to the operation that squashed its tasks
	// together (absent in ledgers written before it was recorded).
	SquashOps map[int]string
	// SquashUnchecked maps a wave to the operation that squashed its
	// tasks together when no task of the wave was recorded squashed
	// since: a fan-in killed before it checked @ after that squash.
	SquashUnchecked map[int]string
	// Overrides are the reasons given for passing low-confidence reviews.
	Overrides []string
	// Agent sums what every agent job of the run spent (nil: none ran).
	Agent *agent.Usage
}

// taskEvent lists the kinds that are about one task.
var taskEvent = map[string]bool{
	EvProvisioned: true, EvDispatched: true, EvCollected: true, EvLeak: true, EvTests: true,
	EvReviewPassed: true, EvReviewFailed: true, EvFixing: true, EvReleased: true,
	EvSquashing: true, EvSquashed: true, EvConflict: true, EvResolved: true,
}

// Fold derives the state from the document.
func Fold(d *Doc) *State {
	s := &State{Tasks: map[int]*TaskState{}, FannedIn: map[int]bool{}, NoTestSurface: map[int]bool{}, SquashOps: map[int]string{}, SquashUnchecked: map[int]string{},
		BaselineCommit: d.Header.BaselineCommit, Checkpoint: d.Header.BaselineCommit}
	for _, t := range d.Header.Tasks {
		s.Tasks[t.Num] = &TaskState{Task: t}
	}
	for w, nums := range d.Header.Waves {
		for _, n := range nums {
			if t := s.Tasks[n]; t != nil {
				t.Wave = w + 1
			}
		}
	}
	for _, e := range d.Events {
		t := s.Tasks[e.Task]
		if t == nil && e.Task != 0 {
			continue
		}
		if u := e.Agent(); u != nil {
			s.Agent = agent.Sum(s.Agent, *u)
			if t != nil {
				t.Agent = agent.Sum(t.Agent, *u)
			}
		}
		if t == nil && taskEvent[e.Kind()] {
			continue // a wave-level record of a task event (a reviewer's dispatch)
		}
		s.fold(t, e)
	}
	return s
}

// fold applies event e (of task t, nil when it concerns none) to s.
func (s *State) fold(t *TaskState, e Event) {
	switch p := e.Payload.(type) {
	case Provisioned:
		t.Workspace, t.Path, t.Base = p.Workspace, p.Path, p.Base
	case Dispatched:
		t.Dispatched++
		if e.Role != RoleReviewer {
			t.Collected = false
		}
	case Collected:
		t.Collected = true
		t.Status, t.Reason = p.Status, p.Reason
		t.Change, t.Changes, t.Files, t.Lines = p.Change, p.Changes, p.Files, p.Lines
		t.Commit, t.CollectedAt = p.Commit, e.At
	case Leaked:
		t.Leak = true
		t.Reason = p.Reason
	case IntegrityFailed:
		s.Integrity = p.Reason
	case Tested:
		t.Tests = p.Status
	case NoTestSurface:
		s.NoTestSurface[e.Wave] = true
	case PassedReview:
		t.Reviewed, t.Approved = true, true
		t.Review = ReviewPassed
		if p.Status == ReviewSkipped {
			t.Review = ReviewSkipped
		}
		t.Notes = p.Other
		if p.Findings != "" {
			t.Findings = p.Findings
		}
	case FailedReview:
		t.Reviewed, t.Approved, t.Findings, t.Notes = true, false, p.Findings, p.Other
		t.Review = ReviewFailed
	case Fixing:
		t.FixFrom = p.Commit
		t.Fixes = p.Attempt
	case Released:
		t.Released = true
	case Squashing:
		t.Squashing = true
	case Squashed:
		t.Squashing, t.Squashed = false, true
		delete(s.SquashUnchecked, t.Wave)
	case SquashedTogether:
		s.SquashOps[e.Wave] = p.Op
		s.SquashUnchecked[e.Wave] = p.Op
	case Conflicted:
		t.Conflict = p.Files
	case Resolved:
		t.Conflict = nil
	case FannedIn:
		s.FannedIn[e.Wave] = true
	case Baselined:
		s.BaselineCommit = p.Commit
		s.Integrity = ""
		s.checkpoint(p.Commit)
	case Gated:
		s.Gate, s.GateReason = p.Status, p.Note
	case Halted:
		s.Halted = p.Reason
		s.checkpoint(p.Commit)
	case Resumed:
		s.Halted = ""
	case Completed:
		s.Complete = true
		s.checkpoint(p.Commit)
	case Aborted:
		s.Aborted, s.AbortedOp = true, p.Op
	case ReceiptRecorded:
		s.Receipts = append(s.Receipts, receiptOf(e, p))
	case ConfidenceOverridden:
		s.Overrides = append(s.Overrides, p.Reason)
	case RemoteDispatching, RemoteDispatched, RemoteFinished, RemoteSettled:
		if t != nil {
			t.Remote = FoldRemote(t.Remote, p)
		}
	}
}

// checkpoint records commit, when known, as @'s newest recorded commit.
func (s *State) checkpoint(commit string) {
	if commit != "" {
		s.Checkpoint = commit
	}
}

// Finished reports whether the run is over (complete or aborted).
func (s *State) Finished() bool { return s.Complete || s.Aborted }
