package stack

import (
	"context"
	"net/http"
	"time"

	"github.com/specstack/specstack/stack/ghapi"
)

// Env is a local repository and the GitHub repository it belongs to.
type Env struct {
	VCS VCS
	GH  *ghapi.Client
}

// ConnectOptions says how to reach GitHub.
type ConnectOptions struct {
	// Transport, when not nil, carries every HTTP request.
	Transport http.RoundTripper
	// Timeout bounds each request; 0 means ghapi.DefaultTimeout.
	Timeout time.Duration
}

// Connect opens the repository at dir and a GitHub client for it (host,
// repository and token resolved as gh does; see ghapi.Resolve).
func Connect(ctx context.Context, dir string, o ConnectOptions) (*Env, error) {
	v, err := OpenVCS(ctx, dir)
	if err != nil {
		return nil, err
	}
	c, err := Dial(ctx, v, o)
	if err != nil {
		return nil, err
	}
	return &Env{VCS: v, GH: c}, nil
}

// Dial is a GitHub client for the repository v is a clone of (host,
// repository and token resolved as gh does; see ghapi.Resolve).
func Dial(ctx context.Context, v VCS, o ConnectOptions) (*ghapi.Client, error) {
	t, err := ghapi.Resolve(ctx, v.OriginURL(ctx))
	if err != nil {
		return nil, err
	}
	t.Timeout = o.Timeout
	return ghapi.New(t, o.Transport)
}
