package openspeccli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/spec"
)

// warnConfig prints, on stderr, the warning OpenSpec prints for an
// openspec/config.yaml it cannot use (it is ignored, not fatal), for the
// commands that read it to resolve a change's schema. A config path that
// is not a regular file is invalid input (6).
func warnConfig(c *cli.Context, r spec.Root) error {
	w, err := r.ConfigWarning()
	if err != nil {
		return classify(err)
	}
	if w != "" {
		fmt.Fprintln(cliapp.Stderr(c), w)
	}
	return nil
}
