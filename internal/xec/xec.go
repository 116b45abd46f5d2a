// Package xec is the only package in specstack that starts processes.
//
// Every command runs bound to a context, with stdin closed (or fed from a
// given reader), a wait delay so a stuck child cannot hang the caller, and
// a bounded capture of stderr that is joined onto the returned *Error. The
// environment is made non-interactive: no pager, no colour, editors that
// fail instead of opening, and no git credential prompts.
package xec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// MaxStderr bounds how much of a child's stderr is kept for error messages.
const MaxStderr = 16 << 10

// WaitDelay is how long a child may keep its output pipes open after the
// context is done before it is killed.
const WaitDelay = 5 * time.Second

// NonInteractiveEnv is appended to every child's environment so nothing
// can ever block on a person.
var NonInteractiveEnv = []string{
	"PAGER=cat",
	"GIT_PAGER=cat",
	"NO_COLOR=1",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_EDITOR=false",
	"GIT_SEQUENCE_EDITOR=false",
	"JJ_EDITOR=false",
	"EDITOR=false",
	"VISUAL=false",
	"GIT_ASKPASS=false",
	"SSH_ASKPASS=false",
	"GCM_INTERACTIVE=never",
}

// Cmd describes one process to run.
type Cmd struct {
	Name  string   // program, looked up on PATH
	Args  []string // arguments, never passed through a shell
	Dir   string   // working directory; "" means the current one
	Env   []string // extra variables, appended after the defaults
	Stdin io.Reader
	// Stdout and Stderr, when set, receive the streams as they come
	// (stderr is still captured, bounded, for the error).
	Stdout io.Writer
	Stderr io.Writer
	// Timeout, when positive, bounds the run on top of the context.
	Timeout time.Duration
	// Setpgid puts the child in its own process group so that a timeout
	// or cancellation kills its whole tree (workers that spawn helpers),
	// and so that whatever the child leaves running in the group when it
	// exits is killed then: a helper a worker left behind would go on
	// writing into the workspace after its result was read and checked.
	Setpgid bool
}

// Error is returned when a process fails to start or exits non-zero.
type Error struct {
	Argv     []string
	Dir      string
	ExitCode int // -1 when the process did not exit normally
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(quoteArgv(e.Argv))
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, ": exit status %d", e.ExitCode)
	} else if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString(": ")
		b.WriteString(s)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNotFound reports that a program is not on PATH.
var ErrNotFound = exec.ErrNotFound

// Output runs c and returns its stdout.
func Output(ctx context.Context, c Cmd) ([]byte, error) {
	var out bytes.Buffer
	if c.Stdout != nil {
		c.Stdout = io.MultiWriter(&out, c.Stdout)
	} else {
		c.Stdout = &out
	}
	err := Run(ctx, c)
	return out.Bytes(), err
}

// Run runs c to completion.
func Run(ctx context.Context, c Cmd) error {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), NonInteractiveEnv...), c.Env...)
	cmd.Stdin = c.Stdin // nil means /dev/null
	cmd.Stdout = c.Stdout
	var errBuf boundedBuffer
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&errBuf, c.Stderr)
	} else {
		cmd.Stderr = &errBuf
	}
	cmd.WaitDelay = WaitDelay
	if c.Setpgid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error {
			return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	err := cmd.Run()
	if c.Setpgid && cmd.Process != nil {
		// The group outlives its leader while a member lives, and its id
		// is not reused meanwhile: nothing but the leftovers is hit
		// (ESRCH when there are none).
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err == nil {
		return nil
	}
	e := &Error{Argv: append([]string{c.Name}, c.Args...), Dir: c.Dir, ExitCode: -1, Stderr: errBuf.String(), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		e.ExitCode = ee.ExitCode()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		e.Err = fmt.Errorf("%w (%w)", ctxErr, err)
		if errors.Is(ctxErr, context.DeadlineExceeded) && c.Timeout > 0 {
			e.Err = fmt.Errorf("no result within %s, killed: %w", c.Timeout, e.Err)
		}
	}
	return e
}

// LookPath reports where a program is on PATH.
func LookPath(name string) (string, error) { return exec.LookPath(name) }

// ExitCode returns the exit code carried by err, or -1 when there is none.
func ExitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.ExitCode
	}
	return -1
}

type boundedBuffer struct{ buf bytes.Buffer }

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := MaxStderr - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string { return b.buf.String() }

// ShellWord is s quoted as one sh word, as a person would type it in a
// command line printed for them: as it is when it holds only characters
// sh takes literally, else in single quotes.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = ShellWord(a)
	}
	return strings.Join(parts, " ")
}
