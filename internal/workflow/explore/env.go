package explore

import (
	"io"

	"github.com/specstack/specstack/jjx"
)

// Env is what explore needs of the project: the orchestrating jj
// workspace, the ledger directory (whose lock is the project's
// jj-openspec lock) and where progress goes.
type Env struct {
	Repo *jjx.Repo
	Dir  string
	Out  io.Writer
}
