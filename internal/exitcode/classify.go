package exitcode

import (
	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/version"
	"github.com/specstack/specstack/jjx"
)

// Of returns the exit code for err: OK for nil; else the code of the
// first error in err's tree, walked as errors.As walks it (err itself,
// then what it wraps, depth first), that has one: an *Error's Code, or
// the code a lower layer's error is given below; Failure when no error
// in the tree has one. So an outer *Error overrides what it wraps.
func Of(err error) Code {
	if err == nil {
		return OK
	}
	if c, ok := first(err); ok {
		return c
	}
	return Failure
}

// first walks err's tree depth first, err itself before what it wraps,
// and returns the code of the first error classify knows.
func first(err error) (Code, bool) {
	if c, ok := classify(err); ok {
		return c, true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if next := u.Unwrap(); next != nil {
			return first(next)
		}
	case interface{ Unwrap() []error }:
		for _, next := range u.Unwrap() {
			if next == nil {
				continue
			}
			if c, ok := first(next); ok {
				return c, true
			}
		}
	}
	return 0, false
}

// classify is the code of err itself (not of what it wraps): an *Error's
// own, or the table's entry for the lower layers' errors. stack/ghapi's
// errors are not here: importing ghapi would link the GitHub client
// (net/http, crypto/tls) into jj-kaisen and jj-openspec, which never
// reach it; gh-specstack's command layer maps them (stackcli's
// githubExit) where its commands resolve the repository, token and
// settings.
func classify(err error) (Code, bool) {
	switch e := err.(type) {
	case *Error:
		return e.Code, true
	// A tool or repository that is missing or unusable.
	case *version.ToolError, *gitx.NotRepositoryError:
		return Missing, true
	// Input the user gave that names nothing or cannot be used.
	case *jjx.RevsetError, *gitx.RevisionError:
		return Usage, true
	case *gitx.RebaseConflictError:
		return Conflicts, true
	case *ledger.LockedError:
		return Locked, true
	// A path that leaves the repository, or is not a file.
	case *confine.EscapeError, *confine.NotRegularError:
		return Invalid, true
	}
	// The sentinels are compared, not matched with errors.Is: first
	// walks the tree itself.
	switch err {
	case jjx.ErrNotFound, jjx.ErrNotWorkspace, gitx.ErrNotFound:
		return Missing, true
	}
	return 0, false
}
