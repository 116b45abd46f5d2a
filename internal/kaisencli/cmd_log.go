package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
)

// LogView is `log --json`: one shape whether or not a run exists.
type LogView struct {
	LedgerDir string         `json:"ledger_dir"`
	Run       *engine.RunLog `json:"run"`
}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show the run's ledger as a log, newest first, under the breakpoint resume continues from",
		Description: `Renders the current run's ledger for a person: first the breakpoint, the
wave, task and step "resume" would continue from (so after a crash you see
where the run stands), then every event newest first with its time, wave, task
and step, and every receipt (the test or gate command, its exit code, a digest
of its output, the tree it ran on, and whether it was reused). Reads only the
ledger: it runs no process and takes no lock.`,
		Action: func(c *cli.Context) error {
			_, dir, err := findWorkspace(c)
			if err != nil {
				return err
			}
			d, ok, err := engine.Load(dir)
			if err != nil {
				return err
			}
			v := LogView{LedgerDir: dir}
			if ok {
				v.Run = engine.BuildLog(d)
			}
			return cliapp.Emit(c, v, func(w io.Writer) error {
				if v.Run == nil {
					_, err := fmt.Fprintf(w, "no run in the ledger (%s)\n", dir)
					return err
				}
				return v.Run.Text(w)
			})
		},
	}
}
