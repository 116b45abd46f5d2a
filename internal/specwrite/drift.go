package specwrite

import (
	"context"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// refuseDrift is archive's drift policy: it refuses (exit 6, nothing
// written) a change whose deltas hold conflict markers or were written
// against specs that moved since (drift's stale findings), naming the
// `jj openspec rebase` that merges it forward. It merges nothing itself.
// A change that does not exist is left to the archive's plan to report;
// refused is false when err is only a failure to read the history.
func refuseDrift(ctx context.Context, r spec.Root, name string) (refused bool, err error) {
	if err := r.CheckChange(name); err != nil {
		return false, nil // PlanArchive says so
	}
	markers, err := drift.MarkerIssues(r, name)
	if err != nil {
		return false, fmt.Errorf("look for conflict markers in change %q: %w", name, err)
	}
	if len(markers) > 0 {
		var b strings.Builder
		for _, i := range markers {
			fmt.Fprintf(&b, "\n  %s:%d: %s", i.Path, i.Line, i.Message)
		}
		return true, exitcode.New(exitcode.Invalid, "change %q: refusing to archive unresolved conflict markers (nothing was changed):%s", name, b.String())
	}
	p, err := drift.Open(ctx, r)
	if err != nil {
		return false, err
	}
	rep, err := p.Check(ctx, []string{name})
	if err != nil {
		return false, fmt.Errorf("drift check of change %q: %w", name, err)
	}
	var stale []string
	for _, f := range rep.Findings {
		if f.Kind == drift.Stale && f.Change == name {
			stale = append(stale, strings.TrimRight(drift.Describe(f), "\n"))
		}
	}
	if len(stale) == 0 {
		return false, nil
	}
	return true, exitcode.New(exitcode.Invalid, "change %q was written against specs that moved since (nothing was changed):\n%s\nrun `jj openspec rebase %s` to merge it forward, or archive with --no-drift-check for OpenSpec's behaviour",
		name, strings.Join(stale, "\n"), name)
}
