package kaisencli

import "github.com/urfave/cli/v2"

// commands lists jj-kaisen's own commands.
func commands() []*cli.Command {
	return []*cli.Command{
		planCommand(),
		briefCommand(),
		runCommand(),
		resumeCommand(),
		statusCommand(),
		logCommand(),
		abortCommand(),
		sweepCommand(),
		artifactsCommand(),
		startCommand(),
		fanOutCommand(),
		collectCommand(),
		reviewCommand(),
		fanInCommand(),
		gateCommand(),
	}
}
