package cliapp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"
)

// JSON reports whether --json was given, before or after the command name.
func JSON(c *cli.Context) bool { return lookup(c, "json") == "true" }

// lookup returns the value of the innermost set flag name along the
// context lineage (command flags shadow global ones only when given).
func lookup(c *cli.Context, name string) string {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(name) {
			return fmt.Sprint(ctx.Value(name))
		}
	}
	return ""
}

// RepoDir returns the directory the command runs in: --repo/-R when given,
// else the current directory. It is absolute and cleaned.
func RepoDir(c *cli.Context) (string, error) {
	dir := lookup(c, "repo")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--repo %q: %w", dir, err)
	}
	return abs, nil
}

// Emit writes v as indented JSON when --json was given, else calls text
// with the command's stdout.
func Emit(c *cli.Context, v any, text func(w io.Writer) error) error {
	if JSON(c) {
		return WriteJSON(c.App.Writer, v)
	}
	return text(c.App.Writer)
}

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Stderr is where progress and diagnostics go.
func Stderr(c *cli.Context) io.Writer { return c.App.ErrWriter }

// commonFlags are added to every command that has an action, so that
// `jj kaisen doctor --json` works as well as `jj-kaisen --json doctor`.
func addCommonFlags(cmd *cli.Command) {
	if cmd.Action != nil {
		if !hasFlag(cmd, "json") {
			cmd.Flags = append(cmd.Flags, &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"})
		}
		if !hasFlag(cmd, "repo") {
			cmd.Flags = append(cmd.Flags, &cli.StringFlag{Name: "repo", Aliases: []string{"R"}, Usage: "run in the repository at `DIR`"})
		}
	}
	for _, sub := range cmd.Subcommands {
		addCommonFlags(sub)
	}
}

// hasFlag reports whether cmd has a flag called name. It reads the
// names of the flag types specstack uses directly: urfave/cli's Names()
// cleans each up with a regular expression (for v1's "name, n" form,
// never written here), and this runs for every flag of every command at
// each start.
func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		var n string
		var aliases []string
		switch f := f.(type) {
		case *cli.BoolFlag:
			n, aliases = f.Name, f.Aliases
		case *cli.StringFlag:
			n, aliases = f.Name, f.Aliases
		case *cli.StringSliceFlag:
			n, aliases = f.Name, f.Aliases
		case *cli.IntFlag:
			n, aliases = f.Name, f.Aliases
		default:
			if slices.Contains(f.Names(), name) {
				return true
			}
			continue
		}
		if n == name || slices.Contains(aliases, name) {
			return true
		}
	}
	return false
}
