package stack

import (
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
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
	// Executor is where the implementers run: "" (here) or
	// engine.ExecutorActions.
	Executor string `toml:"executor,omitempty"`
}

// RunTicket is one planned ticket with its recipe.
type RunTicket = engine.Ticket

// RunDoc is a run's ledger document: the engine's events, in the run
// ledger's stored form.
type RunDoc = ledger.Doc[RunHeader, engine.RunEvent]

// RunLedgerPath is the run's ledger in gh-specstack's ledger directory.
func RunLedgerPath(ledgerDir string) string { return filepath.Join(ledgerDir, "run.toml") }

// ReadRun reads the run's ledger; ok is false when there is none.
func ReadRun(ledgerDir string) (*RunDoc, bool, error) {
	d, err := ledger.Read[RunHeader, engine.RunEvent](RunLedgerPath(ledgerDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return d, err == nil, err
}

// foldRun is the run's state: the engine's fold of its events.
func foldRun(d *RunDoc) *engine.RunState { return engine.FoldRun(d.Header.Tickets, d.Events) }

// tipOf is the published top of the stack: its SHA and branch, the pinned
// base when nothing is published.
func tipOf(s *engine.RunState, h RunHeader) (sha, branch string) {
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
func layerPRs(s *engine.RunState) []int {
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

// TicketBranch is the branch ticket n is built on.
func TicketBranch(n int) string { return "ticket/" + itoa(n) }
