package kaisencli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
)

func collectCommand() *cli.Command {
	return &cli.Command{
		Name:  "collect",
		Usage: "step mode: read wave N's results (change, files, status) and run the integrity check",
		Description: `Reads each provisioned task of the wave: its change from the workspace's own
revset (recovered by its "Task N:" description when the workspace is gone),
the files it touched, and the status from its report. Then checks that @ did
not change against the baseline; a leak halts the run (exit 9). Collecting
again after a fix re-reads the task.`,
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
			if err := r.CollectWave(c.Context, w); err != nil {
				return err
			}
			ierr := r.Integrity(c.Context, w)
			cov := r.Report()
			if err := cliapp.Emit(c, cov.Waves[w-1], func(out io.Writer) error { return waveText(out, cov.Waves[w-1]) }); err != nil {
				return err
			}
			return ierr
		},
	}
}

func waveText(w io.Writer, wv engine.WaveCoverage) error {
	for _, t := range wv.Tasks {
		line := fmt.Sprintf("task %d: %s", t.Task, t.Outcome)
		if t.Status != "" {
			line += " (" + t.Status + ")"
		}
		if t.Change != "" {
			line += " change " + t.Change
		}
		if len(t.Files) > 0 {
			line += " files " + strings.Join(t.Files, ",")
		}
		if t.Why != "" {
			line += " — " + t.Why
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
