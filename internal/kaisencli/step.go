package kaisencli

import (
	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
)

var waveFlag = cliapp.RequiredInt{IntFlag: &cli.IntFlag{Name: "wave", Usage: "the wave `N` (from 1)"}}

// stepRunner opens the run for a step command and refuses finished runs.
func stepRunner(c *cli.Context) (*engine.Runner, error) {
	r, err := openRunner(c)
	if err != nil {
		return nil, err
	}
	if st := r.State(); st.Finished() {
		r.Close()
		return nil, exitcode.New(exitcode.Usage, "run %s is %s: start a new one", r.Doc.Header.RunID, map[bool]string{true: "complete", false: "aborted"}[st.Complete])
	}
	return r, nil
}
