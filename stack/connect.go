package stack

import (
	"context"
	"net/http"

	"github.com/specstack/specstack/stack/ghapi"
)

// Env is a local repository and the GitHub repository it belongs to.
type Env struct {
	VCS VCS
	GH  *ghapi.Client
}

// Connect opens the repository at dir and a GitHub client for it (host,
// repository and token resolved as gh does; see ghapi.Resolve).
// transport, when not nil, carries every HTTP request.
func Connect(ctx context.Context, dir string, transport http.RoundTripper) (*Env, error) {
	v, err := OpenVCS(ctx, dir)
	if err != nil {
		return nil, err
	}
	t, err := ghapi.Resolve(v.OriginURL(ctx))
	if err != nil {
		return nil, err
	}
	c, err := ghapi.New(t, transport)
	if err != nil {
		return nil, err
	}
	return &Env{VCS: v, GH: c}, nil
}
