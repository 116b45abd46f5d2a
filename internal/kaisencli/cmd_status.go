package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
)

// StatusView is `status --json`: one shape whether or not a run exists
// (run is null when the ledger holds none). The run lists its receipts.
type StatusView struct {
	LedgerDir string           `json:"ledger_dir"`
	Run       *engine.Coverage `json:"run"`
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the run in the ledger: per wave, per task, what became of it",
		Action: func(c *cli.Context) error {
			_, dir, err := findWorkspace(c)
			if err != nil {
				return err
			}
			d, ok, err := engine.Load(dir)
			if err != nil {
				return err
			}
			v := StatusView{LedgerDir: dir}
			if ok {
				v.Run = engine.BuildCoverage(d, engine.ArtifactsDir(dir))
				v.Run.Settle(dir, engine.KaisenCommands)
			}
			return cliapp.Emit(c, v, func(w io.Writer) error {
				if v.Run == nil {
					_, err := fmt.Fprintf(w, "no run in the ledger (%s)\n", dir)
					return err
				}
				if err := v.Run.Text(w); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "ledger: %s\n", engine.LedgerPath(dir))
				return err
			})
		},
	}
}
