package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// checkProgram refuses a command of role (what the error calls it), given
// by setting (what the error says to fix), whose program is missing
// (exit 7, naming it), before anything is provisioned: otherwise every
// task starts and ends "exited 127". The command runs as `sh -c` in a
// workspace of the repository at root, so the check reads it as sh would
// where it can: the first word, when it is a plain word (after $VAR and
// ${VAR} of this environment and a leading ~/), is looked up on PATH, or
// as a path (relative ones against root); for `sh SCRIPT` (also bash,
// dash, zsh) SCRIPT must exist too. A command it cannot read so (quotes,
// substitutions, a variable the worker's own environment sets, a
// builtin, an assignment) is left to sh.
func checkProgram(command, root, role, setting string) error {
	words := strings.Fields(command)
	if len(words) == 0 {
		return nil
	}
	prog, ok := plainWord(words[0])
	if !ok || strings.Contains(prog, "=") || shellBuiltin[prog] {
		return nil
	}
	if err := findProgram(prog, root); err != nil {
		return exitcode.Wrap(exitcode.Missing, fmt.Errorf("%s %q: %w: install it, or fix %s", role, command, err, setting))
	}
	if !shells[filepath.Base(prog)] || len(words) < 2 {
		return nil
	}
	script, ok := plainWord(words[1])
	if !ok || strings.HasPrefix(script, "-") {
		return nil
	}
	if err := existsUnder(script, root); err != nil {
		return exitcode.Wrap(exitcode.Missing, fmt.Errorf("%s %q: script %w: fix the path in %s", role, command, err, setting))
	}
	return nil
}

// shells are the programs whose first argument is a script to run.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}

// shellBuiltin are the first words sh resolves without PATH.
var shellBuiltin = map[string]bool{
	".": true, ":": true, "cd": true, "command": true, "eval": true, "exec": true,
	"exit": true, "export": true, "set": true, "source": true, "true": true, "false": true,
	"if": true, "for": true, "while": true, "until": true, "case": true, "{": true, "!": true,
}

// plainWord returns w with $VAR, ${VAR} and a leading ~/ expanded, and
// whether it is a word sh would not change otherwise: only letters,
// digits and "_./+,:@%=-", each variable set here and not one specstack
// sets for the worker (SPECSTACK_*).
func plainWord(w string) (string, bool) {
	var b strings.Builder
	if rest, ok := strings.CutPrefix(w, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		b.WriteString(home + "/")
		w = rest
	}
	for i := 0; i < len(w); {
		c := w[i]
		if c != '$' {
			if !plainByte(c) {
				return "", false
			}
			b.WriteByte(c)
			i++
			continue
		}
		name, n := varName(w[i+1:])
		if name == "" || strings.HasPrefix(name, "SPECSTACK_") {
			return "", false
		}
		v, set := os.LookupEnv(name)
		if !set {
			return "", false
		}
		b.WriteString(v)
		i += 1 + n
	}
	return b.String(), true
}

// varName reads NAME or {NAME} at the start of s and how many bytes it
// took; "" when s starts with neither.
func varName(s string) (string, int) {
	braced := strings.HasPrefix(s, "{")
	if braced {
		s = s[1:]
	}
	k := 0
	for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > 0 && s[k] >= '0' && s[k] <= '9') {
		k++
	}
	if k == 0 {
		return "", 0
	}
	if braced {
		if k >= len(s) || s[k] != '}' {
			return "", 0
		}
		return s[:k], k + 2
	}
	return s[:k], k
}

func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./+,:@%=-", c) >= 0
}

// findProgram finds prog as sh would: a name without "/" on PATH, a path
// as a file (relative to root).
func findProgram(prog, root string) error {
	if !strings.Contains(prog, "/") {
		if _, err := xec.LookPath(prog); err != nil {
			return fmt.Errorf("program %q is not on PATH", prog)
		}
		return nil
	}
	return existsUnder(prog, root)
}

// existsUnder checks that path (relative ones against root) is a file.
func existsUnder(path, root string) error {
	full := path
	if !filepath.IsAbs(path) {
		if root == "" {
			return nil // cannot tell where sh will look
		}
		full = filepath.Join(root, path)
	}
	fi, err := os.Stat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", full)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", full, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", full)
	}
	return nil
}
