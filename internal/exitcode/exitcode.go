// Package exitcode holds the frozen exit-code table shared by the three
// specstack binaries, and the one mapping from errors to it (Of). Codes
// are never renumbered; new ones are appended. jj-openspec's OpenSpec
// verbs (a drop-in for the OpenSpec CLI 1.13.2) exit 0 or 1 as OpenSpec
// does, outside this table's finer codes; specstack's own verbs use it.
//
// The lower layers (jjx, gitx, stack/ghapi, internal/ledger,
// internal/confine) know nothing of exit codes: they return typed errors
// and sentinels of their own, which Of classifies (see classify.go; the
// GitHub client's are classified by gh-specstack's command layer). A test
// keeps this package out of their dependencies. The layers above them
// attach a code where they decide one, with New or Wrap.
package exitcode

import (
	"fmt"
)

// Code is a process exit status with a documented meaning.
type Code int

// The table. Keep in sync with README.md ("Exit codes"); a test checks it.
const (
	OK          Code = 0  // success
	Failure     Code = 1  // an operation failed; the message says which and why
	Usage       Code = 2  // bad flags, arguments or input files
	Locked      Code = 3  // another run holds the ledger lock
	Conflicts   Code = 4  // conflicts remain (conflicts, resolve, fan-in, openspec check, rebase, apply and sync)
	NeedsChoice Code = 5  // a decision is needed: re-run with --yes or a flag
	Invalid     Code = 6  // validation failed (spec, plan, tickets)
	Missing     Code = 7  // a required tool or repository is missing (jj, git, openspec, gh)
	GateFailed  Code = 8  // a test or review gate is red
	Halted      Code = 9  // a run stopped for a person; see its status
	Interrupted Code = 10 // cancelled by a signal; the ledger allows resume
)

// Table lists every code with its meaning, in order, for docs and man pages.
var Table = []struct {
	Code    Code
	Name    string
	Meaning string
}{
	{OK, "ok", "success"},
	{Failure, "failure", "an operation failed; the message names what, where and what to do"},
	{Usage, "usage", "bad flags, arguments or input"},
	{Locked, "locked", "another run holds the ledger lock (the message names its pid and start time)"},
	{Conflicts, "conflicts", "conflicts remain (conflicts, resolve, fan-in, openspec check, rebase, apply and sync)"},
	{NeedsChoice, "needs-decision", "a decision is needed: re-run with --yes or the flag named"},
	{Invalid, "invalid", "validation failed (change, spec, plan or tickets)"},
	{Missing, "missing-tool", "a required tool or repository is missing (jj, git, openspec, gh)"},
	{GateFailed, "gate-failed", "a test or review gate is red"},
	{Halted, "halted", "a run stopped for a person; see its status"},
	{Interrupted, "interrupted", "cancelled by a signal; resume continues from the ledger"},
}

// Error carries an exit code with a message for a person.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// New returns an error that exits with code c.
func New(c Code, format string, args ...any) error {
	return &Error{Code: c, Err: fmt.Errorf(format, args...)}
}

// Wrap attaches code c to err; nil stays nil.
func Wrap(c Code, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: c, Err: err}
}
