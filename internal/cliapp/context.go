package cliapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
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
	given := lookup(c, "repo")
	if given == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(given)
	if err != nil {
		return "", fmt.Errorf("--repo %q: %w", given, err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		hint := ""
		if strings.Count(given, "/") == 1 && !strings.HasPrefix(given, ".") {
			// gh's -R OWNER/REPO, typed out of habit.
			hint = "; -R names a local directory here, not gh's OWNER/REPO (the GitHub repository comes from GH_REPO or the origin remote)"
		}
		return "", exitcode.New(exitcode.Usage, "--repo %s: there is no directory %s%s", given, abs, hint)
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

// WriteJSON writes v as indented JSON followed by a newline, as
// JavaScript's JSON.stringify(v, null, 2) does: <, >, &, U+2028 and
// U+2029 as they are.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(UnescapeSeparators(buf.Bytes()))
	return err
}

// UnescapeSeparators turns encoding/json's \u2028 and \u2029 (which it
// always escapes) back into the characters, as JSON.stringify leaves them;
// an escaped backslash followed by "u2028" is text and stays.
func UnescapeSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if rest := b[i:]; bytes.HasPrefix(rest, []byte(`\u2028`)) || bytes.HasPrefix(rest, []byte(`\u2029`)) {
			if rest[5] == '8' {
				out = append(out, "\u2028"...)
			} else {
				out = append(out, "\u2029"...)
			}
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1]) // an escape pair: its second byte is never the start of another
		i++
	}
	return out
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
