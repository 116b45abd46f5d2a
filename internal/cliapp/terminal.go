package cliapp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Streams are an app's standard streams and how it tells a terminal from
// a pipe. Run uses the process's stdin and the default terminal check;
// tests pass their own to RunStreams to drive prompts.
type Streams struct {
	In  io.Reader // stdin: where prompts read their answer
	Out io.Writer // stdout
	Err io.Writer // stderr: where prompts ask
	// IsTerminal reports whether stream (one of In, Out, Err) is an
	// interactive terminal. nil: an *os.File open on a terminal.
	IsTerminal func(stream any) bool
}

// isTerminalKey holds the app's Streams.IsTerminal in cli.App.Metadata.
const isTerminalKey = "cliapp.isTerminal"

// IsTerminal is the default terminal check: stream is an *os.File open
// on a terminal. A character device is not enough: /dev/null is one, and
// a script's `</dev/null 2>/dev/null` must never be asked a question.
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok || f == nil {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

func isTerminal(c *cli.Context, stream any) bool {
	if f, ok := c.App.Metadata[isTerminalKey].(func(any) bool); ok {
		return f(stream)
	}
	return IsTerminal(stream)
}

// Stdin is the app's standard input (Streams.In).
func Stdin(c *cli.Context) io.Reader {
	if c.App.Reader == nil {
		return os.Stdin
	}
	return c.App.Reader
}

// StdinIsTerminal reports whether the app's stdin is a terminal.
func StdinIsTerminal(c *cli.Context) bool { return isTerminal(c, Stdin(c)) }

// StderrIsTerminal reports whether the app's stderr is a terminal: live
// progress lines and colour go there only then.
func StderrIsTerminal(c *cli.Context) bool { return isTerminal(c, Stderr(c)) }

// CanPrompt reports whether the command may ask a question: stdin and
// stderr are terminals and --json was not given. When it cannot, a
// command that needs a decision prints what it would have shown and
// exits with exitcode.NeedsChoice, naming the flag (--yes) that decides.
func CanPrompt(c *cli.Context) bool {
	return !JSON(c) && StdinIsTerminal(c) && StderrIsTerminal(c)
}

// Confirm asks question on stderr with " [y/N] " and reads one line from
// stdin: only "y" or "yes" (any case, surrounding space ignored) is a yes;
// anything else, an empty line or end of input declines. It reads no byte
// past the answer's newline, so prompts can follow one another. Call it
// only when CanPrompt is true; the error is a failed read other than end
// of input.
func Confirm(c *cli.Context, question string) (bool, error) {
	fmt.Fprintf(Stderr(c), "%s [y/N] ", question)
	line, err := readLine(Stdin(c))
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read the answer to %q from stdin: %w", question, err)
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// readLine reads up to and including '\n' one byte at a time, so that
// nothing after the line is consumed from a shared stdin.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var buf [1]byte
	for {
		n, err := r.Read(buf[:])
		if n == 1 {
			if buf[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}
