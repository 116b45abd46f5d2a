package author

import (
	"io"

	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// Env is what propose, new and ff need of the project: the orchestrating
// jj workspace, the OpenSpec project in it, the ledger directory (whose
// lock is the project's jj-openspec lock) and where progress goes.
type Env struct {
	Repo *jjx.Repo
	Root spec.Root
	Dir  string
	Out  io.Writer
	// Markers lists conflict markers in a change's files (the health
	// check of the draft refuses them).
	Markers func(spec.Root, string) ([]spec.Issue, error)
}

// PRView is the pull request a draft was published with (forge's).
type PRView = forge.PRView
