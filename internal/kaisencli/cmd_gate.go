package kaisencli

import "github.com/urfave/cli/v2"

func gateCommand() *cli.Command {
	return &cli.Command{
		Name:  "gate",
		Usage: "run the full test command once in @; green (or no command) completes the run",
		Description: `The combined-result gate: after the last wave's fan-in, runs the full test
command in @. Red exits 8 and the run stays incomplete; with no test command
the run completes and says that no automated check ran. A run that completes
with a task not merged exits 9, naming each and why.`,
		Flags: overrideFlags(),
		Action: func(c *cli.Context) error {
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			err = r.Gate(c.Context)
			if err == nil {
				err = r.Complete(c.Context)
			}
			return finish(c, r, err)
		},
	}
}
