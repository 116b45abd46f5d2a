package openspeccli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/specwrite"
)

// osStatus is one entry of the status array OpenSpec 1.13.2 prints in its
// JSON failure documents.
type osStatus struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Target   string `json:"target,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

// osFailure renders err, when it is a *specwrite.Blocked, as OpenSpec
// 1.13.2 renders its refusals, and returns the error that exits 1 without
// printing more: with --json the document doc (OpenSpec's null shape of
// the verb, which gets the status array) on stdout; else "✖ Error:
// MESSAGE" and "Fix: FIX" on stderr. Any other error comes back as it is.
func osFailure(c *cli.Context, err error, doc func(status []osStatus) any) error {
	var b *specwrite.Blocked
	if !errors.As(err, &b) {
		return err
	}
	if cliapp.JSON(c) {
		st := []osStatus{{Severity: "error", Code: b.Code, Message: b.Message, Target: b.Target, Fix: b.Fix}}
		if werr := writeOSJSON(c, doc(st)); werr != nil {
			return werr
		}
		return cliapp.Silent(exitcode.Failure)
	}
	if _, err := io.WriteString(c.App.Writer, b.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(cliapp.Stderr(c), "✖ Error: %s\n", b.Message)
	if b.Fix != "" {
		fmt.Fprintf(cliapp.Stderr(c), "Fix: %s\n", b.Fix)
	}
	return cliapp.Silent(exitcode.Failure)
}

// writeOSJSON prints v, a document of OpenSpec's (its keys are OpenSpec's,
// not snake_case), as OpenSpec does (JSON.stringify(v, null, 2)): two-space
// indent, <, >, &, U+2028 and U+2029 as they are.
func writeOSJSON(c *cli.Context, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode the JSON document: %w", err)
	}
	_, err := c.App.Writer.Write(cliapp.UnescapeSeparators(buf.Bytes()))
	return err
}

// tooManyArgs is commander's refusal of extra arguments, as OpenSpec 1.13.2
// prints it for its verb c.Command.Name taking at most expected arguments:
// on stderr, exit 1.
func tooManyArgs(c *cli.Context, expected, got int) error {
	s := "s"
	if expected == 1 {
		s = ""
	}
	fmt.Fprintf(cliapp.Stderr(c), "error: too many arguments for '%s'. Expected %d argument%s but got %d.\n", c.Command.Name, expected, s, got)
	return cliapp.Silent(exitcode.Failure)
}
