package openspeccli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/spec"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "Show a change or spec: a change's proposal or a spec, as OpenSpec's show does",
		ArgsUsage: "ITEM [--type change|spec] [OPENSPEC-FLAGS...]",
		Description: `"openspec show ITEM", natively for its text form: a change's proposal.md or
a spec's spec.md, as it is, on stdout; ITEM resolved as OpenSpec 1.13.2
resolves it ("Unknown item" with the nearest names, "Ambiguous item" for a
change and a spec of one name, exit 1; --type decides). Every other form
(--json, --deltas-only, --diff, --requirements, no ITEM, a change without
proposal.md, …) runs the real OpenSpec CLI, as cli does. OpenSpec's own
help: "jj-openspec show -- --help".`,
		SkipFlagParsing: true,
		BashComplete:    completeChange,
		Action:          runShow,
	}
}

func runShow(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
	}
	name, typ, native := showArgs(args)
	if !native || cliapp.JSON(c) {
		return passThrough(c, append([]string{"show"}, args...))
	}
	r, err := openRoot(c)
	if err == nil {
		err = declaredStore(c, r) // a store: beside specs/ is warned about
	}
	if err != nil {
		return passThrough(c, append([]string{"show"}, args...))
	}
	typ, err = itemType(c, r, name, typ, "show")
	if err != nil || typ == "" {
		return err
	}
	file := filepath.Join(r.SpecsDir(), filepath.FromSlash(name), "spec.md")
	if typ == "change" {
		file = filepath.Join(r.ChangeDir(name), "proposal.md")
	}
	b, err := readShown(r, file)
	if err != nil {
		// A change without proposal.md, a missing spec, a name that
		// leaves the tree: OpenSpec's own messages.
		return passThrough(c, append([]string{"show"}, args...))
	}
	// console.log(content): the file and one more newline.
	_, err = fmt.Fprintln(c.App.Writer, string(b))
	return err
}

// showArgs reads show's arguments when jj-openspec answers them itself:
// one ITEM, optionally --type and --no-interactive; native is false for
// anything else.
func showArgs(args []string) (name, typ string, native bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--no-interactive":
		case a == "--type" && i+1 < len(args):
			i++
			typ = args[i]
		case strings.HasPrefix(a, "--type="):
			typ = strings.TrimPrefix(a, "--type=")
		case strings.HasPrefix(a, "-") || name != "":
			return "", "", false
		default:
			name = a
		}
	}
	return name, typ, name != ""
}

// readShown reads a regular file inside the OpenSpec tree.
func readShown(r spec.Root, file string) ([]byte, error) {
	rel, err := filepath.Rel(r.OpenSpecDir(), file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%q is outside %s", file, r.OpenSpecDir())
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%q is not a regular file", file)
	}
	return os.ReadFile(file)
}
