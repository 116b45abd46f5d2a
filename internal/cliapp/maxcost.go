package cliapp

import (
	"math"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// MaxCostFlag is --max-cost of every verb that starts agent jobs.
func MaxCostFlag(what string) cli.Flag {
	return &cli.Float64Flag{Name: "max-cost", Usage: "start no more agent jobs once the agents' recorded cost reaches `USD`: " + what + " (default: [worker] max-cost, else no limit)"}
}

// MaxCost is --max-cost when given (a positive number of US dollars, else
// exit 2), or fallback (the configuration's, or 0 for the run's recorded
// budget).
func MaxCost(c *cli.Context, fallback float64) (float64, error) {
	if !c.IsSet("max-cost") {
		return fallback, nil
	}
	v := c.Float64("max-cost")
	if !(v > 0) || math.IsInf(v, 1) { // NaN compares false; a NaN or +Inf limit is none
		return 0, exitcode.New(exitcode.Usage, "--max-cost %v: give a positive number of US dollars", v)
	}
	return v, nil
}
