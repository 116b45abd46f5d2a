package stackcli

import (
	"flag"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// positional returns the command's positional arguments, accepting flags
// among and after them ("plan 12 --base main"), which urfave/cli alone
// stops parsing at the first argument. Flags found there are set on c, so
// c.String and cliapp.JSON see them. After "--" everything is positional.
func positional(c *cli.Context) ([]string, error) {
	fs := flag.NewFlagSet(c.Command.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		if err := f.Apply(fs); err != nil {
			return nil, err
		}
	}
	args := c.Args().Slice()
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, exitcode.New(exitcode.Usage, "%s: %v", c.Command.Name, err)
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	var setErr error
	fs.Visit(func(f *flag.Flag) {
		if err := c.Set(f.Name, f.Value.String()); err != nil && setErr == nil {
			setErr = exitcode.New(exitcode.Usage, "%s: --%s: %v", c.Command.Name, f.Name, err)
		}
	})
	return pos, setErr
}
