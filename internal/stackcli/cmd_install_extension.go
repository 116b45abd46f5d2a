package stackcli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/stack/ghext"
)

func installCommand() *cli.Command {
	return &cli.Command{
		Name:  "install-extension",
		Usage: "register this gh-specstack with gh as a local extension, so that `gh specstack ...` works",
		Description: `Makes a directory named gh-specstack holding a link to this executable
(under $XDG_DATA_HOME/specstack/gh-extension, or --dir) and runs
"gh extension install ." there, as gh installs any local extension. gh must
be logged in (gh auth login, or GH_TOKEN set). Already registered: says so
and changes nothing.`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "the extension directory to make (its name must be gh-specstack)"}},
		Action: func(c *cli.Context) error {
			return ghext.Install(c.Context, c.String("dir"), c.App.Writer)
		},
	}
}
