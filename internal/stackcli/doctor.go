package stackcli

import (
	"context"

	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/stack"
	"github.com/specstack/specstack/stack/ghapi"
)

// doctorGitHub adds to doctor's report what publishing needs, resolved
// as every verb that reaches GitHub resolves it: the repository the
// origin remote (or GH_REPO) names, and a token.
func doctorGitHub(ctx context.Context, dir string, rep *doctor.Report) {
	g := &doctor.GitHub{Missing: []string{}}
	origin := ""
	if v, err := stack.OpenVCS(ctx, dir); err == nil {
		origin = v.OriginURL(ctx)
	}
	t, err := ghapi.Resolve(ctx, origin)
	if t.Owner != "" {
		g.Repo = t.Host + "/" + t.Owner + "/" + t.Name
	}
	g.Token = t.Token != ""
	if err != nil {
		g.Missing = append(g.Missing, "publishing needs a GitHub repository and a token: "+err.Error())
	} else {
		g.ActionsWorker = doctorActionsWorker(ctx, dir, t)
	}
	rep.AddGitHub(g)
}

// doctorActionsWorker looks for the remote worker's workflow on the
// default branch and whether the token may dispatch it: two requests,
// each within the configured request limit.
func doctorActionsWorker(ctx context.Context, dir string, t ghapi.Target) *doctor.ActionsWorker {
	a := &doctor.ActionsWorker{Path: actionsworker.Path, Repo: t.Repo()}
	root := ""
	if r, err := repo.Find(dir); err == nil {
		root = r.Root
	}
	configured := ""
	if cfg, err := config.Load(root); err == nil {
		configured = cfg.GitHub.Timeout
	}
	limit, err := ghapi.RequestTimeout(configured)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	t.Timeout = limit
	c, err := ghapi.New(t, nil)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	r, err := c.Repository(ctx)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.Ref = r.DefaultBranch
	a.CanDispatch = r.Permissions != nil && r.Permissions.Push
	if a.Present, err = c.FileExists(ctx, actionsworker.Path, r.DefaultBranch); err != nil {
		a.Error = err.Error()
	}
	return a
}
