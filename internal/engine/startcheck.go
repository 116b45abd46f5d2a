package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// CannotStart reports whether a command run by sh -c could not start at
// all: not found (127) or not executable (126). Such a command is a
// missing tool, never a red test.
func CannotStart(code int) bool { return code == 126 || code == 127 }

// startCheckTimeout bounds the shell that looks a program up.
const startCheckTimeout = 10 * time.Second

// CheckCommandsStart checks, before any worker starts, that the program
// each of cmds (shell commands, run by sh -c in dir) begins with can be
// found by that shell: a builtin, a keyword, or an executable on PATH (or
// at its absolute path). A command whose first word the shell expands
// (quotes, variables, globs) or a relative path a worker may yet create
// is left to run. what names the commands in the error ("test command"),
// fix says where they are set. A program the shell cannot find is a
// missing tool (exit 7) naming it.
func CheckCommandsStart(ctx context.Context, dir, what, fix string, cmds ...string) error {
	seen := map[string]bool{}
	for _, c := range cmds {
		prog := firstProgram(c)
		if prog == "" || seen[prog] {
			continue
		}
		seen[prog] = true
		// The same shell the command runs in decides: `command -v` knows
		// its builtins and keywords and searches PATH as it would.
		err := xec.Run(ctx, xec.Cmd{Name: "sh", Args: []string{"-c", `command -v "$1" >/dev/null`, "specstack-check", prog},
			Dir: dir, Timeout: startCheckTimeout})
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return exitcode.Wrap(exitcode.Interrupted, ctx.Err())
		}
		if xec.ExitCode(err) < 0 {
			return fmt.Errorf("look up %q of %s %q: %w", prog, what, c, err)
		}
		return exitcode.New(exitcode.Missing, "%s %q cannot start: %q is not a program sh finds on PATH (in %s); install it or fix %s, then run again (nothing was started)",
			what, c, prog, dir, fix)
	}
	return nil
}

// firstProgram is the program a shell command line starts with, after
// any NAME=value assignments: "" when the shell would expand or quote it,
// or when it is a relative path (which may not exist until a worker made
// it).
func firstProgram(command string) string {
	for _, f := range strings.Fields(command) {
		if name, _, ok := strings.Cut(f, "="); ok && isShellName(name) {
			continue // an assignment for the command
		}
		if strings.ContainsAny(f, "$`'\"\\*?[]{}()<>|&;~#=") || strings.HasPrefix(f, "-") {
			return ""
		}
		if strings.Contains(f, "/") && !strings.HasPrefix(f, "/") {
			return ""
		}
		return f
	}
	return ""
}

// isShellName reports whether s can name a shell variable.
func isShellName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// TestCommands are a run's test commands: the full test command and the
// test map's, each once.
func TestCommands(o Options) []string {
	var cmds []string
	if o.Test != "" {
		cmds = append(cmds, o.Test)
	}
	for _, g := range slices.Sorted(maps.Keys(o.TestMap)) {
		if c := o.TestMap[g]; c != "" {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// CheckTestsStart checks a run's test commands (o's) as
// CheckCommandsStart does, in dir (the orchestrating workspace), before
// the run records anything.
func CheckTestsStart(ctx context.Context, dir string, o Options) error {
	return CheckCommandsStart(ctx, dir, "test command", "--test, [worker] test or [kaisen] test-map", TestCommands(o)...)
}

// CheckTestsStart checks the run's test commands, with the override a
// resume gives, before the run goes on.
func (r *Runner) CheckTestsStart(ctx context.Context) error {
	o := r.Doc.Header.Options
	o.Test = r.testCmd()
	return CheckTestsStart(ctx, r.Backend.TargetDir(), o)
}

// cannotStartError stops the run when test command cmd could not start
// in dir (exit 126 or 127): a missing tool (exit 7), recorded as a halt,
// never a red test for a fixer to chase.
func (r *Runner) cannotStartError(ctx context.Context, cmd, dir, log string, code int) error {
	return r.halt(ctx, exitcode.New(exitcode.Missing,
		"test command %q cannot start in %s (exit %d; log %s): install or fix it, then `%s`",
		cmd, dir, code, log, r.commands().Resume))
}
