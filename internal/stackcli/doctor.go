package stackcli

import (
	"context"

	"github.com/specstack/specstack/internal/doctor"
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
	}
	rep.AddGitHub(g)
}
