// Package gogh is the ghapi.Backend of gh-specstack: host, token and
// requests through github.com/cli/go-gh/v2, so that a gh extension
// follows every gh setting (GH_DEBUG's request log, http_unix_socket, the
// configuration file as gh reads it), except that the keyring's `gh auth
// token` runs under the caller's context and a deadline.
package gogh

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/auth"
	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/specstack/specstack/stack/ghapi"
)

// Backend is go-gh's ghapi.Backend.
type Backend struct{}

var _ ghapi.Backend = Backend{}

// Auth implements ghapi.Backend: go-gh reads gh's configuration once a
// process.
func (Backend) Auth() ghapi.Auth { return ghAuth{} }

type ghAuth struct{}

// DefaultHost implements ghapi.Auth.
func (ghAuth) DefaultHost() string {
	h, _ := auth.DefaultHost()
	return h
}

// Token implements ghapi.Auth: the environment and gh's configuration as
// go-gh reads them, then the keyring through `gh auth token` under ctx and
// a deadline (go-gh's own TokenForHost runs it with neither).
func (ghAuth) Token(ctx context.Context, host string) string {
	if t, _ := auth.TokenFromEnvOrConfig(host); t != "" {
		return t
	}
	return ghapi.GHAuthToken(ctx, host)
}

// ParseRepo implements ghapi.Backend.
func (Backend) ParseRepo(s, host string) (ghapi.Target, error) {
	r, err := repository.ParseWithHost(s, host)
	if err != nil {
		return ghapi.Target{}, err
	}
	return ghapi.Target{Host: r.Host, Owner: r.Owner, Name: r.Name}, nil
}

// Requester implements ghapi.Backend.
func (Backend) Requester(o ghapi.RequesterOptions) (ghapi.Requester, error) {
	rest, err := api.NewRESTClient(api.ClientOptions{Host: o.Host, APIHost: o.APIHost, AuthToken: o.Token, Transport: o.Transport})
	if err != nil {
		return nil, err
	}
	return requester{rest}, nil
}

type requester struct{ rest *api.RESTClient }

// RequestWithContext turns go-gh's *api.HTTPError into a *ghapi.Refusal.
func (r requester) RequestWithContext(ctx context.Context, method, url string, body io.Reader) (*http.Response, error) {
	resp, err := r.rest.RequestWithContext(ctx, method, url, body)
	var he *api.HTTPError
	if err == nil || !errors.As(err, &he) {
		return resp, err
	}
	ref := &ghapi.Refusal{Status: he.StatusCode, Message: he.Message, Headers: he.Headers}
	for _, item := range he.Errors {
		ref.Items = append(ref.Items, item.Message)
	}
	return nil, ref
}
