package specwrite

import (
	"context"
	"errors"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// InitMessage is the description init gives a blank @.
const InitMessage = "openspec: spec tree (jj openspec init)"

// Init is `jj openspec init [PATH]` under the lock of the project in
// dir: OpenSpec's spec tree laid out in dir and, in a jj workspace whose
// @ was blank, @ described InitMessage (described: the change ID it
// described, "" when @ was left as it was). An existing tree is exit 2,
// nothing changed. target is the openspec/ folder.
func Init(ctx context.Context, dir string) (target, described string, err error) {
	l, _, err := lockProject(spec.Root{Dir: dir})
	if err != nil {
		return "", "", err
	}
	defer l.Release()
	described, err = jjx.WriteOnBlank(ctx, dir, InitMessage, func() error {
		var err error
		target, err = spec.InitLayout(dir)
		if errors.Is(err, spec.ErrTreeExists) {
			return exitcode.New(exitcode.Usage, "init: %s already exists: nothing was changed (the project is set up; `jj openspec list` shows it)", target)
		}
		if err != nil {
			return exitcode.New(exitcode.Failure, "init: %w", err)
		}
		return nil
	})
	return target, described, err
}
