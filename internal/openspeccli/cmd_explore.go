package openspeccli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/explore"
)

func exploreCommand() *cli.Command {
	return &cli.Command{
		Name:      "explore",
		Usage:     "refused in the background (run it inline); with --findings FILE a worker writes a findings document and nothing else",
		ArgsUsage: "[TOPIC]",
		Description: `OpenSpec's explore is interactive, a thinking partner: it is not handed to a
background worker. Run it inline in your agent session (/opsx:explore), then
author the change with "jj openspec propose CHANGE --worker CMD". Without
--findings: always exit 2.

With --findings FILE, a worker (--worker, or [worker] command) investigates
TOPIC in a jj workspace on @ and writes its findings to $SPECSTACK_FINDINGS
(FILE's place in the workspace); the topic is in $SPECSTACK_BRIEF. FILE must
be inside the repository (not under .jj or .git) and a regular file when it
exists. The worker may change that file and nothing else: any other path in
its workspace, no findings, a findings path that is not a regular file, or an
edit to the repository's own working copy while it ran is refused (exit 9),
nothing written, its workspace kept. Otherwise FILE is written atomically in
the working copy and the workspace released. The project lock is held (exit
3 while another jj-openspec holds it).

Each run is recorded in the ledger (.jj/specstack/jj-openspec/explore/)
until it ends. A run killed part-way (kill -9 of jj-openspec) is cleaned up
by the next explore, or by "explore --abort", which starts nothing
("explore --status" lists the recorded runs): its
worker, if still running, is stopped; findings it had written in its
workspace but not yet in the working copy are kept in the ledger's
artifacts folder (the path is printed); its workspace is forgotten and
removed and its changes abandoned. Findings already written to the working
copy stay as they are.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "findings", Usage: "have a worker write the findings document `FILE` (inside the repository) and nothing else"},
			&cli.StringFlag{Name: "worker", Usage: "explorer `CMD`, run by sh -c in the workspace (default: [worker] command)"},
			&cli.StringFlag{Name: "timeout", Usage: "worker `DURATION` (default: [worker] timeout)"},
			&cli.BoolFlag{Name: "abort", Usage: "clean up what killed explore runs left (worker, workspace) and start nothing"},
			&cli.BoolFlag{Name: "status", Usage: "show the explore runs in the ledger (killed ones, or the one running)"},
		},
		Action: runExplore,
	}
}

func runExplore(c *cli.Context) error {
	args, err := cliapp.Args(c) // flags after TOPIC are parsed here
	if err != nil {
		return err
	}
	if c.Bool("abort") && c.Bool("status") {
		return exitcode.New(exitcode.Usage, "explore: give --abort or --status, not both")
	}
	if c.Bool("abort") {
		return abortExplore(c, args)
	}
	if c.Bool("status") {
		return exploreStatus(c, args)
	}
	if c.String("findings") == "" {
		return exitcode.New(exitcode.Usage, "%s", explore.ExploreInline)
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("read the current folder for --findings: %w", err)
	}
	res, err := explore.Explore(c.Context, s.exploreEnv(), explore.ExploreRequest{
		Topic: strings.Join(args, " "), Findings: c.String("findings"), Cwd: cwd,
		Worker:        cmp.Or(c.String("worker"), s.cfg.Worker.Command),
		Timeout:       cmp.Or(c.String("timeout"), s.cfg.Worker.Timeout),
		WorkspacesDir: config.WorkspacesDir(s.cfg, s.env.Repo.Root),
	})
	if err != nil {
		return err
	}
	return cliapp.Emit(c, res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "findings: %s (%d bytes, worker %s); nothing else changed\n", res.Findings, res.Bytes, res.Worker)
		return err
	})
}

// ExploreAbortView is `explore --abort --json`.
type ExploreAbortView struct {
	LedgerDir string                   `json:"ledger_dir"`
	Cleaned   []explore.ExploreCleanup `json:"cleaned"`
}

func abortExplore(c *cli.Context, args []string) error {
	if len(args) > 0 || c.String("findings") != "" {
		return exitcode.New(exitcode.Usage, "explore --abort cleans up killed explore runs and starts nothing: give no TOPIC and no --findings")
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	cleaned, err := explore.AbortExplores(c.Context, s.exploreEnv(), config.WorkspacesDir(s.cfg, s.env.Repo.Root))
	if err != nil {
		return err
	}
	return cliapp.Emit(c, ExploreAbortView{LedgerDir: s.env.Dir, Cleaned: cleaned}, func(w io.Writer) error {
		var err error
		if len(cleaned) == 0 {
			_, err = fmt.Fprintf(w, "no interrupted explore run in the ledger (%s)\n", s.env.Dir)
		} else {
			_, err = fmt.Fprintf(w, "cleaned up %s\n", plural.Count(len(cleaned), "interrupted explore run", "interrupted explore runs"))
		}
		return err
	})
}

// ExploreStatusView is `explore --status --json`.
type ExploreStatusView struct {
	LedgerDir string                  `json:"ledger_dir"`
	Runs      []explore.ExploreStatus `json:"runs"`
}

func exploreStatus(c *cli.Context, args []string) error {
	if len(args) > 0 || c.String("findings") != "" {
		return exitcode.New(exitcode.Usage, "explore --status lists the recorded explore runs: give no TOPIC and no --findings")
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	runs, err := explore.ExploreStatuses(s.env.Dir)
	if err != nil {
		return err
	}
	return cliapp.Emit(c, ExploreStatusView{LedgerDir: s.env.Dir, Runs: runs}, func(w io.Writer) error {
		if len(runs) == 0 {
			_, err := fmt.Fprintf(w, "no explore run in the ledger (%s)\n", s.env.Dir)
			return err
		}
		var b strings.Builder
		for _, r := range runs {
			fmt.Fprintf(&b, "explore of %s: %s (started %s, workspace %s)\n", r.Findings, r.Phase, r.Started.Format(time.RFC3339), r.Workspace)
			if r.Interrupted {
				b.WriteString("  `jj openspec explore --abort` (or the next explore) cleans it up\n")
			}
			fmt.Fprintf(&b, "  ledger: %s\n", r.Ledger)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// exploreEnv is the part of the session explore works in.
func (s *applySession) exploreEnv() *explore.Env {
	return &explore.Env{Repo: s.env.Repo, Dir: s.env.Dir, Out: s.env.Out}
}
