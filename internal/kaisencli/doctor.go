package kaisencli

import (
	"context"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/internal/workflow/forge"
)

// doctorExecutor adds to doctor's report what --executor github-actions
// needs: gh-specstack, through which jj-kaisen reaches GitHub, and what
// its doctor finds (the repository, a token, the worker workflow on the
// default branch and whether the token may dispatch it). jj-kaisen runs
// without GitHub: what is missing is a warning only when [executor] kind
// is github-actions; otherwise the github line is shown when gh-specstack
// could look.
func doctorExecutor(ctx context.Context, dir string, rep *doctor.Report) {
	root := dir
	if r, err := repo.Find(dir); err == nil {
		root = r.Root
	}
	remote := false
	if cfg, err := config.Load(root); err == nil {
		remote = cfg.Executor.Kind == engine.ExecutorActions
	}
	need := func(why string) {
		if remote {
			rep.Warnings = append(rep.Warnings, "[executor] kind = \""+engine.ExecutorActions+"\": "+why)
		}
	}
	prog := forge.GitHubProgramPath()
	if prog == "" {
		need("it needs " + forge.GitHubProgram + ", found neither beside jj-kaisen nor on PATH: `make install` installs it with jj-kaisen")
		return
	}
	theirs, err := forge.AskDoctor(ctx, prog, dir)
	if err != nil {
		need(err.Error())
		return
	}
	g := &doctor.GitHub{Repo: theirs.Repo, Token: theirs.Token, ActionsWorker: theirs.ActionsWorker, Missing: []string{}}
	if remote {
		g.Missing = append(g.Missing, theirs.Missing...)
		if a := g.ActionsWorker; a != nil && (a.Error != "" || !a.Present || !a.CanDispatch) {
			g.Missing = append(g.Missing, "actions worker: "+a.Text())
		}
	} else if g.ActionsWorker == nil {
		return // no repository or token to look with, and none asked for
	}
	rep.AddGitHub(g)
}
