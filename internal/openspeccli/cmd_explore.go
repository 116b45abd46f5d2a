package openspeccli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/osapply"
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
3 while another jj-openspec holds it).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "findings", Usage: "have a worker write the findings document `FILE` (inside the repository) and nothing else"},
			&cli.StringFlag{Name: "worker", Usage: "explorer `CMD`, run by sh -c in the workspace (default: [worker] command)"},
			&cli.StringFlag{Name: "timeout", Usage: "worker `DURATION` (default: [worker] timeout)"},
		},
		Action: runExplore,
	}
}

func runExplore(c *cli.Context) error {
	args, err := cliapp.Args(c) // flags after TOPIC are parsed here
	if err != nil {
		return err
	}
	if c.String("findings") == "" {
		return exitcode.New(exitcode.Usage, "%s", osapply.ExploreInline)
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("read the current folder for --findings: %w", err)
	}
	res, err := osapply.Explore(c.Context, s.env, osapply.ExploreRequest{
		Topic: strings.Join(args, " "), Findings: c.String("findings"), Cwd: cwd,
		Worker:        pick(c.String("worker"), s.cfg.Worker.Command),
		Timeout:       pick(c.String("timeout"), s.cfg.Worker.Timeout),
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
