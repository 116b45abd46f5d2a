package kaisencli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
)

func artifactsCommand() *cli.Command {
	return &cli.Command{
		Name:  "artifacts",
		Usage: "print the artifacts directory (briefs, reports, logs, findings, prior-waves.md)",
		Action: func(c *cli.Context) error {
			s, err := openSession(c)
			if err != nil {
				return err
			}
			dir := engine.ArtifactsDir(s.dir)
			return cliapp.Emit(c, map[string]string{"artifacts": dir}, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, dir)
				return err
			})
		},
	}
}
