package stack

import (
	"context"

	"github.com/specstack/specstack/internal/engine"
)

// gate reviews ticket n (priority 2); see rungate's doc.
func (d *driver) gate(ctx context.Context, n int, ws engine.Workspace, unmet []string) ([]string, error) {
	return unmet, nil
}
