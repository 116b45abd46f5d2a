package openspeccli

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/relay"
)

func relayCommand() *cli.Command {
	return &cli.Command{
		Name:      "relay",
		Usage:     "propose a change with a worker, park it for a person's go/no-go, then apply it from the recorded proposal revision",
		ArgsUsage: "IDEA-OR-CHANGE",
		Description: `The composite verb: a first leg that is exactly propose, a gate where a
person decides, and a second leg that is exactly apply.

"jj openspec relay IDEA-OR-CHANGE --worker CMD": a change name (add-export)
is drafted as it is (propose, or ff when the change exists); an idea in
words ("Add a CSV export") names the change by its slug (add-a-csv-export)
and goes to the worker in its brief. The draft is validated and surfaced on
change/<slug>; its proposal revision is recorded (the commit the worker's
report names with "Revision: <commit id>" when it is one of the drafted
commits, else the one jj log shows). The relay then parks in the ledger
(.jj/specstack/jj-openspec/relay/) with the drafted artifacts and their
validation printed. Nothing advances without "relay go"; there is no timeout.
A relay killed in its first leg resumes when run again. (status, go and
no-go are the subcommands: a change of one of those names cannot be relayed.)

"relay status" lists the relays and their states (parked, going, applied,
no-go, failed, authoring).

"relay go CHANGE [--worker CMD] [--verify CMD]... [--no-push]": apply on a new change on
the recorded proposal revision (@ moves there; the previous @ is kept), with
the first leg's worker and the configured verify commands ([openspec] verify,
plus each --verify) unless given. When the proposal revision was rewritten
since the gate (its change now at another commit, or gone) go refuses with
exit 5 and applies nothing: re-run the relay, or run "jj openspec apply" on
the new revision. go run again resumes the apply it started.

"relay no-go CHANGE" ends a parked relay and deletes nothing: the proposal
revision and change/<slug> stay as they are.

relay changes no other verb. Every step holds the project lock (exit 3
while another jj-openspec holds it).

Exit codes: 0 parked, applied or ended; 2 usage (no such relay); 5 a
decision (parked already, not at the gate, proposal rewritten, another
apply unfinished); 6 the draft is invalid; 9 the worker left no draft; and
apply's codes for go.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "worker", Usage: "authoring `CMD`, run by sh -c in the workspace (default: [worker] command); go uses it too"},
			&cli.StringFlag{Name: "timeout", Usage: "worker `DURATION` (default: [worker] timeout)"},
		},
		Action: runRelay,
		Subcommands: []*cli.Command{
			{
				Name:   "status",
				Usage:  "list the relays in the ledger and their states (parked ones wait for go or no-go)",
				Action: runRelayStatus,
			},
			{
				Name:         "go",
				Usage:        "apply a parked relay's change from its recorded proposal revision",
				ArgsUsage:    "CHANGE",
				BashComplete: completeChange,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "worker", Usage: "implementer `CMD` (default: the first leg's worker)"},
					&cli.StringSliceFlag{Name: "verify", Usage: "verify gate `CMD`, repeatable, added to [openspec] verify"},
					&cli.StringFlag{Name: "timeout", Usage: "per-worker `DURATION` (default: the first leg's, else [worker] timeout)"},
					&cli.BoolFlag{Name: "no-push", Usage: "stop after archive and bookmark: no push, no pull request"},
				},
				Action: runRelayGo,
			},
			{
				Name:         "no-go",
				Usage:        "end a parked relay; nothing is deleted",
				ArgsUsage:    "CHANGE",
				BashComplete: completeChange,
				Action:       runRelayNoGo,
			},
		},
	}
}

func runRelay(c *cli.Context) error {
	args, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return exitcode.New(exitcode.Usage, "relay: give one IDEA-OR-CHANGE (quote an idea in words), or a subcommand: status, go, no-go")
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	v, err := relay.Relay(c.Context, s.env, relay.RelayRequest{
		Arg:           args[0],
		Worker:        cmp.Or(c.String("worker"), s.cfg.Worker.Command),
		Timeout:       cmp.Or(c.String("timeout"), s.cfg.Worker.Timeout),
		WorkspacesDir: config.WorkspacesDir(s.cfg, s.env.Repo.Root),
	})
	if v != nil {
		if eerr := cliapp.Emit(c, v, func(w io.Writer) error { return writeRelayView(w, v) }); eerr != nil && err == nil {
			err = eerr
		}
	}
	return err
}

func writeRelayView(w io.Writer, v *relay.RelayView) error {
	if v.Author != nil {
		if err := writeAuthorResult(w, v.Author, false); err != nil {
			return err
		}
	}
	r := v.Relay
	if r.State != relay.RelayParked {
		_, err := fmt.Fprintf(w, "relay: %s%s\n", r.State, relayNote(r))
		return err
	}
	_, err := fmt.Fprintf(w, "relay: parked at the gate, proposal revision %s (from %s)\nnext: `jj openspec relay go %s` implements it, `jj openspec relay no-go %s` ends it\n",
		shortOp(r.Revision), r.RevisionFrom, r.Change, r.Change)
	return err
}

func relayNote(r *relay.RelayRecord) string {
	if r.Note == "" {
		return ""
	}
	return " (" + r.Note + ")"
}

// RelayStatusView is `relay status --json`.
type RelayStatusView struct {
	LedgerDir string               `json:"ledger_dir"`
	Relays    []*relay.RelayRecord `json:"relays"`
}

func runRelayStatus(c *cli.Context) error {
	if args, err := cliapp.Args(c); err != nil || len(args) > 0 {
		if err == nil {
			err = exitcode.New(exitcode.Usage, "relay status takes no argument")
		}
		return err
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	rs, err := relay.Relays(s.env.Dir)
	if err != nil {
		return err
	}
	v := RelayStatusView{LedgerDir: s.env.Dir, Relays: rs}
	return cliapp.Emit(c, v, func(w io.Writer) error {
		if len(rs) == 0 {
			_, err := fmt.Fprintf(w, "no relay in the ledger (%s)\n", s.env.Dir)
			return err
		}
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s: %s", r.Change, r.State)
			switch r.State {
			case relay.RelayParked:
				fmt.Fprintf(&b, " since %s, proposal revision %s on %s", r.Parked.Format(time.RFC3339), shortOp(r.Revision), r.Bookmark)
			case relay.RelayGoing, relay.RelayApplied, relay.RelayEnded:
				fmt.Fprintf(&b, " (decided %s), proposal revision %s on %s", r.Decided.Format(time.RFC3339), shortOp(r.Revision), r.Bookmark)
			}
			b.WriteString(relayNote(r) + "\n")
			if r.State == relay.RelayParked {
				verdict := "valid"
				if !r.Valid {
					verdict = "INVALID"
				}
				fmt.Fprintf(&b, "  validate: %s, apply-ready: %t, worker: %s\n", verdict, r.Ready, r.Worker)
				for _, f := range r.Files {
					fmt.Fprintf(&b, "  %s\n", f)
				}
			}
			if r.PR != "" {
				fmt.Fprintf(&b, "  pull request: %s\n", r.PR)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// RelayGoView is `relay go --json`.
type RelayGoView struct {
	Relay *relay.RelayRecord `json:"relay"`
	Apply *apply.Result      `json:"apply"`
}

func runRelayGo(c *cli.Context) error {
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	if err := warnConfig(c, s.env.Root); err != nil {
		return err
	}
	req := configuredRequest(c, s)
	req.Worker = c.String("worker") // else the first leg's
	req.Reviewer = s.cfg.Worker.Reviewer
	req.Distribution = apply.Auto
	req.Timeout = c.String("timeout") // else the first leg's, else [worker] timeout
	rec, res, err := relay.RelayGo(c.Context, s.env, relay.RelayGoRequest{Change: name, ConfigTimeout: s.cfg.Worker.Timeout, Apply: req})
	if res != nil {
		v := RelayGoView{Relay: rec, Apply: res}
		if eerr := cliapp.Emit(c, v, func(w io.Writer) error {
			if err := writeApply(w, res); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "relay: %s\n", rec.State)
			return err
		}); eerr != nil && err == nil {
			err = eerr
		}
	}
	return err
}

func runRelayNoGo(c *cli.Context) error {
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	rec, err := relay.RelayNoGo(s.env, name)
	if err != nil {
		return err
	}
	return cliapp.Emit(c, rec, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "relay of %s ended (no-go): nothing deleted, proposal revision %s stays on %s\n", rec.Change, shortOp(rec.Revision), rec.Bookmark)
		return err
	})
}
