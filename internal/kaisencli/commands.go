package kaisencli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/actionsworker"
)

// commands lists jj-kaisen's own commands.
func commands() []*cli.Command {
	return []*cli.Command{
		initCommand(),
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
		actionsworker.Command(),
	}
}
