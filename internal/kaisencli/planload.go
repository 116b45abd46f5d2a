package kaisencli

import (
	"errors"
	"io/fs"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plan"
	"github.com/specstack/specstack/internal/regfile"
)

// loadPlan reads the plan at path, or builds an ad-hoc plan from tasks.
// Exactly one of the two must be given.
func loadPlan(path string, tasks []string) (*plan.Plan, string, error) {
	switch {
	case path != "" && len(tasks) > 0:
		return nil, "", exitcode.New(exitcode.Usage, "give a plan file or --task, not both")
	case len(tasks) > 0:
		p, err := plan.AdHocPlan(tasks)
		if err != nil {
			return nil, "", exitcode.New(exitcode.Usage, "--task: %w", err)
		}
		return p, "ad-hoc", nil
	case path == "":
		return nil, "", exitcode.New(exitcode.Usage, "name a plan file (PLAN) or give tasks with --task")
	}
	data, err := regfile.Read(path)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, "", exitcode.New(exitcode.Usage, "read plan %q: no such file", path)
		case errors.Is(err, regfile.ErrNotRegular):
			// A FIFO would block the read forever: refused unopened.
			return nil, "", exitcode.New(exitcode.Invalid, "plan: %w", err)
		}
		return nil, "", exitcode.New(exitcode.Usage, "plan: %w", err)
	}
	p, err := plan.ParsePlan(data)
	if err != nil {
		var pe *plan.PlanError
		if errors.As(err, &pe) && pe.Line > 0 {
			return nil, "", exitcode.New(exitcode.Invalid, "plan %s:%d: %s", path, pe.Line, pe.Msg)
		}
		return nil, "", exitcode.New(exitcode.Invalid, "plan %s: %w", path, err)
	}
	return p, path, nil
}
