package ghapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/auth"
	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/specstack/specstack/internal/xec"
)

// The user's gh setup and the requests go through github.com/cli/go-gh/v2,
// so that gh-specstack, a gh extension, follows every gh setting (GH_DEBUG's
// request log, http_unix_socket, the configuration file as gh reads it),
// except that the keyring's `gh auth token` runs under the caller's context
// and a deadline (go-gh's TokenForHost runs it with neither).

// ghAuthTimeout bounds `gh auth token` (under the caller's context).
const ghAuthTimeout = 30 * time.Second

// defaultHost is the host of a GH_REPO that names none: GH_HOST, else
// gh's configured default.
func defaultHost() string {
	h, _ := auth.DefaultHost()
	return h
}

// token is host's token, "" when none is found (or ctx ended while `gh
// auth token` ran): the environment and gh's configuration as go-gh reads
// them, then the keyring.
func token(ctx context.Context, host string) string {
	if t, _ := auth.TokenFromEnvOrConfig(host); t != "" {
		return t
	}
	return ghAuthToken(ctx, host)
}

// ghAuthToken is the token `gh auth token --secure-storage --hostname
// HOST` prints (gh from GH_PATH, else PATH; "" without gh or a token),
// run under ctx and at most ghAuthTimeout: the system keyring's token,
// which gh's configuration file does not hold.
func ghAuthToken(ctx context.Context, host string) string {
	gh := os.Getenv("GH_PATH")
	if gh == "" {
		gh, _ = xec.LookPath("gh")
	}
	if gh == "" {
		return ""
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: gh, Args: []string{"auth", "token", "--secure-storage", "--hostname", host}, Timeout: ghAuthTimeout})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// parseRepo reads GH_REPO: [HOST/]OWNER/REPO or a URL, host being the
// default.
func parseRepo(s, host string) (Target, error) {
	r, err := repository.ParseWithHost(s, host)
	if err != nil {
		return Target{}, err
	}
	return Target{Host: r.Host, Owner: r.Owner, Name: r.Name}, nil
}

// requesterOptions are what a requester needs to know of its client.
type requesterOptions struct {
	Host string // the repository's host
	// APIHost, when not "", also gets the token (the API override's
	// host); requests to any other host than Host, its subdomains and
	// APIHost go without it.
	APIHost   string
	Token     string
	Transport http.RoundTripper
}

// requester sends one request to an absolute URL, with GitHub's headers
// and the token. A response other than 2xx is returned as a *Refusal, its
// body read and closed.
type requester struct{ rest *api.RESTClient }

func newRequester(o requesterOptions) (requester, error) {
	rest, err := api.NewRESTClient(api.ClientOptions{Host: o.Host, APIHost: o.APIHost, AuthToken: o.Token, Transport: o.Transport})
	if err != nil {
		return requester{}, err
	}
	return requester{rest}, nil
}

// RequestWithContext turns go-gh's *api.HTTPError into a *Refusal.
func (r requester) RequestWithContext(ctx context.Context, method, url string, body io.Reader) (*http.Response, error) {
	resp, err := r.rest.RequestWithContext(ctx, method, url, body)
	var he *api.HTTPError
	if err == nil || !errors.As(err, &he) {
		return resp, err
	}
	ref := &Refusal{Status: he.StatusCode, Message: he.Message, Headers: he.Headers}
	for _, item := range he.Errors {
		ref.Items = append(ref.Items, item.Message)
	}
	return nil, ref
}

// Refusal is a response other than 2xx, before Client names the request
// (it becomes an *Error).
type Refusal struct {
	Status int
	// Message is GitHub's message and its errors' messages, one a line
	// (an error's code, when it has one, rendered as go-gh does).
	Message string
	// Items are the messages of GitHub's errors list, as sent.
	Items   []string
	Headers http.Header
}

func (r *Refusal) Error() string {
	if r.Message == "" {
		return "HTTP " + strconv.Itoa(r.Status)
	}
	return "HTTP " + strconv.Itoa(r.Status) + ": " + strings.ReplaceAll(r.Message, "\n", "; ")
}
