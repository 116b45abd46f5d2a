// Package openspeccli holds the commands of jj-openspec. Commands are thin:
// they parse flags into a request, call the spec and jjx packages, and
// render the result.
package openspeccli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/conflictcli"
)

// Spec describes the jj-openspec binary.
func Spec() cliapp.Spec {
	return cliapp.Spec{
		Name:  "jj-openspec",
		Usage: "OpenSpec verbs on jj workspaces",
		Description: `jj-openspec runs OpenSpec verbs on jj workspaces: list, status, validate
and archive natively (with the same results as the OpenSpec CLI), tasks with
their file areas and a separability verdict for per-group fan-out.

Use it as "jj openspec VERB" after:
   jj config set --user aliases.openspec '["util","exec","--","jj-openspec"]'`,
		Commands: withRecovery(append([]*cli.Command{listCommand(), statusCommand(), validateCommand(), checkCommand(), rebaseCommand(), archiveCommand(), tasksCommand(), cliCommand()}, conflictcli.Commands()...)),
	}
}
