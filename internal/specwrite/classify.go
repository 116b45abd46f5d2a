package specwrite

import (
	"errors"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec"
)

// Classify attaches the documented exit code to a spec error: a change
// that does not exist is a usage error (2), failed validation, a delta
// that cannot merge, an input that is not a regular file (a FIFO where
// tasks.md belongs) or a symbolic link out of the repository is invalid
// (6), unchecked tasks need a decision (5).
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
	return err
}
