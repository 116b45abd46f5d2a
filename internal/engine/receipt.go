package engine

import (
	"context"
	"fmt"
	"time"
)

// Role of the final gate's receipts (per-task tests are "test").
const RoleGate = "gate"

// Receipt is the evidence a gate leaves: the command, how it exited, a
// digest of what it printed, the role that ran it and the identity of the
// exact tree it ran on (jj: the commit ID of the workspace's @; a
// reviewer's: "diff-sha256:" and the digest of the diff it judged). A
// test or the final gate asked again for the same command and tree
// reuses a passing receipt instead of running; any other tree, or a
// failed receipt, runs it again. Reviewers' judgement is never reused.
type Receipt struct {
	Command string `json:"command"`
	// Passed: the command passed (exited 0); a waived one did not.
	Passed   bool   `json:"passed"`
	ExitCode int    `json:"exit_code"`
	Commit   string `json:"sha,omitempty"`    // the commit it ran on (gh-specstack)
	Waived   bool   `json:"waived,omitempty"` // it fails at the base too (gh-specstack)
	Stage    string `json:"stage,omitempty"`  // validate, publish, review, integration (gh-specstack)
	// The rest is kaisen's and apply's: when, of which wave, task and
	// role, and the digest of the output and the tree it ran on.
	At     time.Time `json:"at,omitzero"`
	Wave   int       `json:"wave,omitempty"`
	Task   int       `json:"task,omitempty"` // 0 for the final gate
	Role   string    `json:"role,omitempty"`
	Digest string    `json:"digest,omitempty"` // sha256 of its output
	Tree   string    `json:"tree,omitempty"`
	Reused bool      `json:"reused,omitempty"` // this ask reused an earlier receipt
}

func receiptOf(e Event, p ReceiptRecorded) Receipt {
	return Receipt{At: e.At, Wave: e.Wave, Task: e.Task, Role: e.Role, Command: p.Command,
		Passed: p.ExitCode == 0, ExitCode: p.ExitCode, Digest: p.Digest, Tree: p.Tree, Reused: p.Reused}
}

// passingReceipt returns the newest receipt of a run of command by role
// on tree that passed.
func (s *State) passingReceipt(role, command, tree string) (Receipt, bool) {
	for i := len(s.Receipts) - 1; i >= 0; i-- {
		rc := s.Receipts[i]
		if !rc.Reused && rc.Role == role && rc.Command == command && rc.Tree == tree && rc.ExitCode == 0 {
			return rc, true
		}
	}
	return Receipt{}, false
}

// runGate runs job j as a gate on tree, or reuses a matching receipt (and
// says so), and records the receipt either way. An interrupted run
// records nothing.
func (r *Runner) runGate(ctx context.Context, w, task int, role string, j Job, tree string) (Result, error) {
	if rc, ok := r.State().passingReceipt(role, j.Command, tree); ok && tree != "" {
		r.logf("%s: %q already passed on tree %s (receipt of %s, output %s): not run again",
			gateLabel(role, task), j.Command, short(tree), rc.At.Format(time.RFC3339), short(rc.Digest))
		ev := Event{Wave: w, Task: task, Role: role, Payload: ReceiptRecorded{Command: j.Command, Tree: tree, Digest: rc.Digest, Reused: true}}
		return Result{ExitCode: 0}, r.record(ev)
	}
	res := RunJob(ctx, j)
	if ctx.Err() != nil {
		return res, nil
	}
	rc := ReceiptRecorded{Command: j.Command, Tree: tree, ExitCode: res.ExitCode, Digest: res.Digest}
	if res.Err != nil && res.ExitCode == 0 {
		rc.ExitCode = -1
	}
	return res, r.record(Event{Wave: w, Task: task, Role: role, Payload: rc})
}

func gateLabel(role string, task int) string {
	if task == 0 {
		return role
	}
	return fmt.Sprintf("task %d: %s", task, role)
}
