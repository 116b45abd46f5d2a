package cliapp

import (
	"testing"

	"github.com/urfave/cli/v2"
)

// TestMaxCost: --max-cost takes a positive, finite number of dollars;
// 0, a negative number, NaN and +Inf (none of them a limit) are usage
// errors, and an unset flag gives the fallback.
func TestMaxCost(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want float64
		ok   bool
	}{
		{[]string{"x"}, 7, true},
		{[]string{"x", "--max-cost", "2.5"}, 2.5, true},
		{[]string{"x", "--max-cost", "0"}, 0, false},
		{[]string{"x", "--max-cost", "-1"}, 0, false},
		{[]string{"x", "--max-cost", "NaN"}, 0, false},
		{[]string{"x", "--max-cost", "+Inf"}, 0, false},
	} {
		var got float64
		var err error
		app := &cli.App{Flags: []cli.Flag{MaxCostFlag("test")}, Action: func(c *cli.Context) error {
			got, err = MaxCost(c, 7)
			return nil
		}}
		if rerr := app.Run(tc.args); rerr != nil {
			t.Fatalf("%q: %v", tc.args, rerr)
		}
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: MaxCost = %v, %v; want %v, ok %v", tc.args, got, err, tc.want, tc.ok)
		}
	}
}
