package engine

import (
	"context"
	"fmt"
)

// RoleVerify is the role of a verify gate's receipts: the commands a
// binary runs once over the integrated result, beyond the run's own gate
// (jj-openspec's [openspec] verify and --verify).
const RoleVerify = "verify"

// VerifyOutcome is one verify command's result on the target's tree.
type VerifyOutcome struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"` // -1 when it could not run or timed out
	Passed   bool   `json:"passed"`
	Reused   bool   `json:"reused,omitempty"` // a passing receipt for this tree was reused
	Tree     string `json:"tree"`
	Log      string `json:"log"`
}

// Verify runs each command in the target's working copy (@), one after
// another, as a gate of role: each leaves a receipt bound to @'s tree,
// and a passing receipt for the same command and tree is reused. Only an
// exit 0 passes; a command that cannot run, times out or is killed does
// not. An interrupted context stops it with the outcomes so far.
func (r *Runner) Verify(ctx context.Context, role string, commands []string) ([]VerifyOutcome, error) {
	if len(commands) == 0 {
		return nil, nil // nothing to run: @ need not be read (a jj process)
	}
	at, err := r.Backend.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: read @: %w", role, err)
	}
	var out []VerifyOutcome
	for i, cmd := range commands {
		log := r.art(fmt.Sprintf("%s-%d.log", role, i+1))
		j := r.testJob(cmd, r.Backend.TargetDir(), "all", log)
		j.Role = role
		// runGate reuses a passing receipt for this command and tree.
		_, reused := r.State().passingReceipt(role, cmd, at)
		reused = reused && at != ""
		if !reused {
			r.logf("%s: running %q in %s", role, cmd, r.Backend.TargetDir())
		}
		res, err := r.runGate(ctx, 0, 0, role, j, at)
		if err != nil {
			return out, err
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		o := VerifyOutcome{Command: cmd, ExitCode: res.ExitCode, Tree: at, Log: log, Reused: reused}
		if res.Err != nil && res.ExitCode == 0 {
			o.ExitCode = -1
		}
		o.Passed = o.ExitCode == 0 && res.Err == nil
		out = append(out, o)
	}
	return out, nil
}

// Record appends events a binary's own phases add to the run's ledger
// (kinds the engine's Fold does not know are kept and shown by BuildLog).
func (r *Runner) Record(events ...Event) error { return r.record(events...) }
