package ghapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/lazyregexp"
)

// Client talks to one repository's REST API.
type Client struct {
	T    Target
	rest requester
	base string // REST base URL, ending in "/"
}

// New returns a client for t. transport, when not nil, carries every
// request (tests); with t.APIURL set, requests to any other host are
// refused before they leave the process.
func New(t Target, transport http.RoundTripper) (*Client, error) {
	if transport == nil {
		transport = http.DefaultTransport
	}
	base := t.APIURL
	if base != "" && !strings.HasSuffix(base, "/") {
		base += "/"
		t.APIURL = base
	}
	transport = ctxHeaders{next: transport}
	opts := requesterOptions{Host: t.Host, Token: t.Token}
	if base != "" {
		u, _ := url.Parse(base)
		// go-gh attaches the token only to the host, its subdomains or the
		// exact APIHost: name the override's host so it gets the token
		// (when go-gh accepts it as a bare host name; onlyHost adds the
		// token otherwise, to the override's requests only).
		if h := u.Hostname(); !strings.Contains(h, ":") {
			opts.APIHost = h
		}
		transport = onlyHost{host: u.Host, base: base, token: t.Token, next: transport}
	} else {
		base = restBase(t.Host)
	}
	opts.Transport = transport
	rest, err := newRequester(opts)
	if err != nil {
		return nil, fmt.Errorf("GitHub client for %s: %w", t.Host, err)
	}
	return &Client{T: t, rest: rest, base: base}, nil
}

// restBase is the REST base URL of a host, as gh computes it.
func restBase(host string) string {
	h := normalizeHost(host)
	if isEnterprise(h) {
		return "https://" + h + "/api/v3/"
	}
	return "https://api." + h + "/"
}

// graphQLURL is the GraphQL endpoint beside the REST base.
func (c *Client) graphQLURL() string {
	if c.T.APIURL == "" {
		h := normalizeHost(c.T.Host)
		if isEnterprise(h) {
			return "https://" + h + "/api/graphql"
		}
		return "https://api." + h + "/graphql"
	}
	if b, ok := strings.CutSuffix(c.base, "/api/v3/"); ok {
		return b + "/api/graphql"
	}
	return c.base + "graphql"
}

// onlyHost refuses requests to any host but the API override's.
type onlyHost struct {
	host, base, token string
	next              http.RoundTripper
}

func (o onlyHost) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Host, o.host) {
		return nil, fmt.Errorf("request to %s refused: %s=%s sends every request there", req.URL.Redacted(), APIURLEnv, o.base)
	}
	if req.Header.Get("Authorization") == "" && o.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "token "+o.token)
	}
	return o.next.RoundTrip(req)
}

// headerKey carries extra request headers in a request's context (go-gh
// sets no header per request): a conditional request's If-None-Match.
type headerKey struct{}

func withHeader(ctx context.Context, name, value string) context.Context {
	h := http.Header{}
	if prev, ok := ctx.Value(headerKey{}).(http.Header); ok {
		h = prev.Clone()
	}
	h.Set(name, value)
	return context.WithValue(ctx, headerKey{}, h)
}

// ctxHeaders adds the headers of the request's context.
type ctxHeaders struct{ next http.RoundTripper }

func (c ctxHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	if h, ok := req.Context().Value(headerKey{}).(http.Header); ok {
		req = req.Clone(req.Context())
		for k, v := range h {
			req.Header[k] = v
		}
	}
	return c.next.RoundTrip(req)
}

// repoPath is "repos/OWNER/NAME" + suffix.
func (c *Client) repoPath(format string, args ...any) string {
	return "repos/" + url.PathEscape(c.T.Owner) + "/" + url.PathEscape(c.T.Name) + fmt.Sprintf(format, args...)
}

// do sends one request; in is JSON-encoded when not nil, out decoded when
// not nil (a *[]byte gets the body as it is, an io.Writer has it copied
// to it as it comes).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	_, err := c.send(ctx, method, path, in, out)
	return err
}

func (c *Client) send(ctx context.Context, method, path string, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%s /%s: encode request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = c.base + path
	}
	// The deadline covers the whole exchange: a server that accepts the
	// connection and never answers (or stops halfway) ends the command.
	limit := c.T.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	reqCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	timedOut := func(err error) error {
		if ctx.Err() == nil && errors.Is(reqCtx.Err(), context.DeadlineExceeded) {
			return &TimeoutError{Method: method, Path: shownPath(path), Limit: limit}
		}
		return err
	}
	resp, err := c.rest.RequestWithContext(reqCtx, method, target, body)
	if err != nil {
		return nil, timedOut(wrapError(method, path, err))
	}
	defer resp.Body.Close()
	if w, ok := out.(io.Writer); ok { // streamed: a log of any length
		if _, err := io.Copy(w, resp.Body); err != nil {
			return nil, timedOut(fmt.Errorf("%s /%s: read response: %w", method, path, err))
		}
		return resp.Header, nil
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, timedOut(fmt.Errorf("%s /%s: read response: %w", method, path, err))
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data // a text or binary document, kept as it came
		return resp.Header, nil
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 && resp.StatusCode != http.StatusNoContent {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("%s /%s: decode response: %w", method, path, err)
		}
	}
	return resp.Header, nil
}

var nextLink = lazyregexp.New(`<([^>]+)>;\s*rel="next"`)

// getAll follows GitHub's Link pagination and returns every item.
func getAll[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	return getAllIn[T](ctx, c, path, "")
}

// getAllIn is getAll for listings whose pages are objects holding the
// items under field (the Actions API's {"total_count", "jobs": [...]});
// field "" is a page that is the array itself.
func getAllIn[T any](ctx context.Context, c *Client, path, field string) ([]T, error) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := path + sep + "per_page=100"
	var all []T
	for pages := 0; next != ""; pages++ {
		if pages >= 100 {
			return nil, fmt.Errorf("GET /%s: more than 100 pages", shownPath(path))
		}
		var raw json.RawMessage
		h, err := c.send(ctx, http.MethodGet, next, nil, &raw)
		if err != nil {
			return nil, err
		}
		if field != "" && len(raw) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil {
				return nil, fmt.Errorf("GET /%s: decode response: %w", shownPath(path), err)
			}
			raw = obj[field]
		}
		var page []T
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &page); err != nil {
				return nil, fmt.Errorf("GET /%s: decode response: %w", shownPath(path), err)
			}
		}
		all = append(all, page...)
		next = ""
		if m := nextLink.FindStringSubmatch(h.Get("Link")); m != nil {
			next = m[1]
		}
	}
	return all, nil
}

// Error is a request GitHub refused.
type Error struct {
	Method  string
	Path    string
	Status  int
	Message string
	// RateLimited is set when GitHub refused for rate limiting; Reset is
	// when the limit resets (as GitHub sent it), if known; RetryAfter is
	// how long GitHub asks to wait before a retry.
	RateLimited bool
	Reset       string
	RetryAfter  time.Duration
	// Tries is how many times the request was sent, when it was retried.
	Tries int
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s /%s: HTTP %d", e.Method, e.Path, e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	switch {
	case e.RateLimited:
		msg += "; rate limited by GitHub"
		if e.Reset != "" {
			msg += " until " + e.Reset
		}
		if e.Tries > 1 {
			msg += fmt.Sprintf(": still limited after %d tries: wait and re-run", e.Tries)
		} else {
			msg += ": wait and re-run (not retried)"
		}
	case e.Status == http.StatusUnauthorized:
		msg += "; the token was refused: " + LoginHint
	}
	return msg
}

// IsStatus reports whether err is a GitHub refusal with status code.
func IsStatus(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == code
}

// TimeoutError is a request GitHub did not answer within the limit.
type TimeoutError struct {
	Method, Path string
	Limit        time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s /%s: no answer from GitHub within %s (%s or [github] timeout sets the limit)", e.Method, e.Path, e.Limit, TimeoutEnv)
}

// shownPath is a request's path for messages: without the query, and
// without the host of an absolute (pagination) URL.
func shownPath(path string) string {
	if u, err := url.Parse(path); err == nil && u.IsAbs() {
		return strings.TrimPrefix(u.Path, "/")
	}
	return strings.SplitN(path, "?", 2)[0]
}

func wrapError(method, path string, err error) error {
	shown := shownPath(path)
	var he *Refusal
	if !errors.As(err, &he) {
		return fmt.Errorf("%s /%s: %w", method, shown, err)
	}
	// go-gh joins GitHub's message and its errors with newlines, dropping
	// an error's own message when it has a code: keep one line, and every
	// message.
	msg := strings.Join(strings.Split(he.Message, "\n"), "; ")
	for _, item := range he.Items {
		if item != "" && !strings.Contains(msg, item) {
			msg += " (" + item + ")"
		}
	}
	e := &Error{Method: method, Path: shown, Status: he.Status, Message: msg}
	if he.Headers != nil && (he.Status == http.StatusForbidden || he.Status == http.StatusTooManyRequests) {
		if he.Headers.Get("X-RateLimit-Remaining") == "0" || he.Headers.Get("Retry-After") != "" || he.Status == http.StatusTooManyRequests {
			e.RateLimited = true
			e.Reset = resetTime(he.Headers)
			e.RetryAfter = retryDelay(he.Headers, time.Now())
		}
	}
	return e
}

// gh's host names (go-gh keeps its own copy internal).
const (
	hostGitHub    = "github.com"
	hostLocal     = "github.localhost"
	tenancySuffix = ".ghe.com"
)

// normalizeHost is gh's: subdomains of github.com and github.localhost
// are those hosts, a tenancy host is its last label before ghe.com.
func normalizeHost(host string) string {
	h := strings.ToLower(host)
	switch {
	case strings.HasSuffix(h, "."+hostGitHub):
		return hostGitHub
	case strings.HasSuffix(h, "."+hostLocal):
		return hostLocal
	}
	if before, ok := strings.CutSuffix(h, tenancySuffix); ok {
		return before[strings.LastIndex(before, ".")+1:] + tenancySuffix
	}
	return h
}

// isEnterprise reports whether host is a GitHub Enterprise Server: not
// github.com, github.localhost or a tenancy (*.ghe.com).
func isEnterprise(host string) bool {
	h := normalizeHost(host)
	return h != hostGitHub && h != hostLocal && !strings.HasSuffix(h, tenancySuffix)
}
