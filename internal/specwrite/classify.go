package specwrite

import (
	"errors"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// Classify attaches the documented exit code to a spec error: a change
// that does not exist is a usage error (2), failed validation, a delta
// that cannot merge, an input that is not a regular file (a FIFO where
// tasks.md belongs) or a symbolic link out of the repository is invalid
// (6), unchecked tasks need a decision (5); spec/drift's policy errors
// as ClassifyDrift says.
func Classify(err error) error {
	var me *spec.MergeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, spec.ErrChangeNotFound):
		return exitcode.Wrap(exitcode.Usage, err)
	case errors.Is(err, spec.ErrInvalid), errors.As(err, &me), errors.Is(err, regfile.ErrNotRegular), errors.Is(err, spec.ErrOutside):
		return exitcode.Wrap(exitcode.Invalid, err)
	case errors.Is(err, spec.ErrIncomplete):
		return exitcode.Wrap(exitcode.NeedsChoice, err)
	case errors.Is(err, spec.ErrTaskNotFound):
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return ClassifyDrift(err)
}

// ClassifyDrift attaches the documented exit code to spec/drift's policy
// errors: archive's refusal (drift.Refuse) is invalid (6), the merge
// forward's halt (drift.MergeForward) is conflicts (4). Other errors
// pass as they are.
func ClassifyDrift(err error) error {
	var refused *drift.RefusedError
	var halt *drift.HaltError
	switch {
	case errors.As(err, &refused):
		return exitcode.Wrap(exitcode.Invalid, err)
	case errors.As(err, &halt):
		return exitcode.Wrap(exitcode.Conflicts, err)
	}
	return err
}
