package ghapi

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Backend is where a Client's host, token and requests come from.
//
// Lean, this package's own, reads gh's environment and hosts.yml itself
// and sends requests with net/http; package gogh is go-gh's, for
// gh-specstack, which as a gh extension follows every gh setting (its
// debug log, its unix socket). Lean is for a binary that talks to GitHub
// only now and then and must not pay for go-gh's initialisation, a YAML
// parser and a terminal library among it, on every start; no shipped
// binary is one today (jj-openspec runs gh-specstack instead, to link no
// net/http at all), and the tests use it.
type Backend interface {
	// Auth returns the user's gh setup as one Resolve reads it.
	Auth() Auth
	// ParseRepo reads GH_REPO: [HOST/]OWNER/REPO or a URL, host being
	// the default. The Target has Host, Owner and Name set.
	ParseRepo(s, host string) (Target, error)
	// Requester returns what sends the requests of a client for o.
	Requester(o RequesterOptions) (Requester, error)
}

// Auth answers the default host and the hosts' tokens from one reading
// of the user's gh setup (Lean reads gh's hosts.yml once, when first
// asked).
type Auth interface {
	// DefaultHost is the host of a GH_REPO that names none.
	DefaultHost() string
	// Token is host's token, "" when none is found (or ctx ended while
	// a command that prints it, `gh auth token`, ran).
	Token(ctx context.Context, host string) string
}

// RequesterOptions are what a Requester needs to know of its client.
type RequesterOptions struct {
	Host string // the repository's host
	// APIHost, when not "", also gets the token (the API override's
	// host); requests to any other host than Host, its subdomains and
	// APIHost go without it.
	APIHost   string
	Token     string
	Transport http.RoundTripper
}

// Requester sends one request to an absolute URL, with GitHub's headers
// and the token. A response other than 2xx is returned as a *Refusal, its
// body read and closed.
type Requester interface {
	RequestWithContext(ctx context.Context, method, url string, body io.Reader) (*http.Response, error)
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

// backendOr is b, or Lean when b is nil.
func backendOr(b Backend) Backend {
	if b == nil {
		return Lean{}
	}
	return b
}
