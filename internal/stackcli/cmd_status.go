package stackcli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the run's tickets: state, pull request, receipts (read-only)",
		Description: `Reads the run's ledger (no lock, no network) and shows each ticket's state —
published (with its pull request), gating, publishing, failed, unmet,
needs-decision, subsumed, not-started — its receipts (command, exit code,
SHA; waived when it failed at the base too), the baseline's pre-existing
failures, and why the run halted. A running run is "running" while a live
process holds the ledger lock (its pid shown), else "interrupted", with the
command that resumes it.`,
		Action: func(c *cli.Context) error {
			doc, dir, err := recordedRun(c, "no run in this repository")
			if err != nil {
				return err
			}
			v := statusView{RunStatus: stack.StatusOf(doc)}
			v.settle(dir)
			return cliapp.Emit(c, v, v.writeText)
		},
	}
}

// statusView is the run's status with who drives it: PID, the live
// process that holds the ledger lock of a running run; Next, when none
// does, how to go on (the state is then "interrupted").
type statusView struct {
	*stack.RunStatus
	PID  int    `json:"pid,omitempty"`
	Next string `json:"next,omitempty"`
}

// settle tells a running run from a dead one by the ledger lock of dir.
func (v *statusView) settle(dir string) {
	if v.State != "running" {
		return
	}
	if v.PID = engine.Driver(dir); v.PID == 0 {
		v.State = engine.PhaseInterrupted
		v.Next = "no process is driving the run: resume with `gh specstack resume`"
	}
}

func (v statusView) writeText(w io.Writer) error {
	if err := v.RunStatus.WriteText(w); err != nil {
		return err
	}
	var err error
	switch {
	case v.PID != 0:
		_, err = fmt.Fprintf(w, "running: pid %d holds the run\n", v.PID)
	case v.Next != "":
		_, err = fmt.Fprintf(w, "%s: %s\n", v.State, v.Next)
	}
	return err
}

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name:  "resume",
		Usage: "continue the run from its ledger",
		Description: `Continues the run recorded in the ledger with the settings it started with:
published tickets stay as they are, the baseline is not measured again, a
ticket a halt or a kill left before its publish starts over in a fresh
worktree, and one left inside the publish lane finishes it, adopting what
already reached origin and GitHub (no second branch, pull request or stack
entry).

--worker replaces the worker the run was started with (a command that
failed, a preset that suits better): it is used from then on, for every
implementer, fixer and prior-work graph still to run, and recorded in the
ledger, so a later resume keeps it. It is checked as run checks it before
anything is recorded, and refused (exit 2) once the run is finalized.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "worker", Usage: "the worker from now on, recorded for later resumes: an agent preset (claude, codex) or a `COMMAND` run by sh -c in each ticket's worktree (default: the recorded one)"},
			maxCostFlag,
		},
		Action: func(c *cli.Context) error {
			var req stack.ResumeRequest
			if c.IsSet("worker") {
				if req.Worker = c.String("worker"); strings.TrimSpace(req.Worker) == "" {
					return exitcode.New(exitcode.Usage, "resume --worker %q: name the worker from now on (an agent preset such as claude, or a command), or resume without --worker to keep the recorded one", req.Worker)
				}
			}
			// No run is said before GitHub is reached for nothing.
			if _, _, err := recordedRun(c, "no run to resume in this repository"); err != nil {
				return err
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			opts, err := driveOptions(c, s)
			if err != nil {
				return err
			}
			st, err := stack.Resume(c.Context, env, req, opts)
			return emitStatus(c, st, err)
		},
	}
}

// recordedRun reads the run in the repository's ledger and its folder; no
// run is a usage error (exit 2) opening with none, which says what the
// command found nothing to do.
func recordedRun(c *cli.Context, none string) (*stack.RunDoc, string, error) {
	dir, err := ledgerDir(c)
	if err != nil {
		return nil, "", err
	}
	doc, ok, err := stack.ReadRun(dir)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", exitcode.New(exitcode.Usage, "%s (%s): start one with gh specstack run SPEC --worker CMD --yes", none, stack.RunLedgerPath(dir))
	}
	return doc, dir, nil
}
