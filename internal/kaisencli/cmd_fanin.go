package kaisencli

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
)

func fanInCommand() *cli.Command {
	return &cli.Command{
		Name:  "fan-in",
		Usage: "step mode: squash wave N's approved tasks into @, smallest diff first",
		Description: `Releases approved tasks' workspaces and squashes their changes into @ (in
the run's merge order, else smallest diff first), checking conflicts() after
each: tasks.md conflicts are reconciled, others halt with exit 4 naming the
files. Every collected task needs a verdict first (review record), unless the
run skips review.`,
		Flags: []cli.Flag{waveFlag},
		Action: func(c *cli.Context) error {
			w, err := wave(c)
			if err != nil {
				return err
			}
			r, err := stepRunner(c)
			if err != nil {
				return err
			}
			defer r.Close()
			if err := r.CheckWaveReady(w); err != nil {
				return err
			}
			if err := r.CheckReviewed(w); err != nil {
				return err
			}
			if r.Doc.Header.Options.SkipReview {
				if err := r.Review(c.Context, w); err != nil { // records the skipped reviews
					return err
				}
			}
			err = r.FanIn(c.Context, w)
			cov := r.Report()
			if eerr := cliapp.Emit(c, cov.Waves[w-1], func(out io.Writer) error { return waveText(out, cov.Waves[w-1]) }); eerr != nil && err == nil {
				err = eerr
			}
			return err
		},
	}
}
