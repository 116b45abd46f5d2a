package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

func fanOutCommand() *cli.Command {
	return &cli.Command{
		Name:  "fan-out",
		Usage: "step mode: provision wave N's workspaces and print, per task, workspace, path, brief, report and the worker job; starts nothing",
		Description: `Creates one workspace per task of the wave (wave 1 on @-, later waves on @)
and prints what a worker needs. With --json each task's "job" is exactly what
the driver would run: start "argv" (empty when no worker command is set: use
your own) in "dir" with the variables of "env" added to the environment, stdin
closed, output to "log". The worker must write "Status: DONE" (or
DONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT) to REPORT. Then run collect.`,
		Flags: []cli.Flag{waveFlag},
		Action: func(c *cli.Context) error {
			w, err := wave(c)
			if err != nil {
				return err
			}
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.CheckWaveReady(w); err != nil {
				return err
			}
			if err := r.Provision(c.Context, w); err != nil {
				return err
			}
			views, err := r.WaveJobs(w)
			if err != nil {
				return err
			}
			return cliapp.Emit(c, views, func(out io.Writer) error {
				for _, v := range views {
					if _, err := fmt.Fprintf(out, "task %d: workspace %s\n  path:   %s\n  brief:  %s\n  report: %s\n", v.Task, v.Workspace, v.Path, v.Brief, v.Report); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}
