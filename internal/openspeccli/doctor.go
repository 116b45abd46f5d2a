package openspeccli

import (
	"context"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/workflow/forge"
)

// noPush is the way on without what publishing needs.
const noPush = " (until then, apply with --no-push)"

// doctorPublishing adds to doctor's report what apply's push and pull
// request need: gh-specstack, which publishes, and what it needs (its
// own doctor's answer: a GitHub repository and a token). Each thing
// missing is a warning: apply --no-push works without them.
func doctorPublishing(ctx context.Context, dir string, rep *doctor.Report) {
	g := &doctor.GitHub{Missing: []string{}}
	defer rep.AddGitHub(g)
	prog := forge.GitHubProgramPath()
	if prog == "" {
		g.Missing = append(g.Missing, "publishing needs "+forge.GitHubProgram+", found neither beside jj-openspec nor on PATH: `make install` installs it with jj-openspec"+noPush)
		return
	}
	g.Program = prog
	theirs, err := forge.AskDoctor(ctx, prog, dir)
	if err != nil {
		g.Missing = append(g.Missing, "publishing: "+err.Error()+noPush)
		return
	}
	g.Repo, g.Token, g.ActionsWorker = theirs.Repo, theirs.Token, theirs.ActionsWorker
	for _, m := range theirs.Missing {
		g.Missing = append(g.Missing, m+noPush)
	}
}
