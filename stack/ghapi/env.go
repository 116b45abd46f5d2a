// Package ghapi is gh-specstack's GitHub client (jj-openspec publishes by
// running gh-specstack): the REST endpoints (and the little GraphQL) it
// needs, host, credentials and requests from the user's gh setup through
// github.com/cli/go-gh/v2, like every gh extension.
package ghapi

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/config"
)

// APIURLEnv overrides the REST API base URL (GitHub Enterprise proxies,
// tests). Plain http is allowed; every request then goes there and
// nowhere else.
const APIURLEnv = "GH_SPECSTACK_API_URL"

// TimeoutEnv bounds each request (a Go duration); it wins over the
// configuration's [github] timeout.
const TimeoutEnv = "GH_SPECSTACK_TIMEOUT"

// DefaultTimeout bounds each request when nothing else does.
const DefaultTimeout = 30 * time.Second

// LoginHint tells a person how to give gh-specstack a token.
const LoginHint = "run gh auth login or set GH_TOKEN"

// Target is the repository a command works on and how to reach it.
type Target struct {
	Host   string // github.com, or a GitHub Enterprise host
	Owner  string
	Name   string
	Token  string
	APIURL string // override of the REST base URL; "" means the host's own
	// Timeout bounds each request, from sending it to reading the whole
	// answer; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Repo returns "owner/name".
func (t Target) Repo() string { return t.Owner + "/" + t.Name }

// Resolve settles the target the way gh does: GH_REPO ([HOST/]OWNER/REPO)
// when set, else the origin remote's URL (originURL, may be ""); the host
// from GH_HOST or gh's configured default; the token from GH_TOKEN,
// GITHUB_TOKEN (GH_ENTERPRISE_TOKEN for other hosts), gh's config or
// `gh auth token`, run under ctx; and APIURLEnv. It fails with a
// *RepoError, a *TokenError or a *SettingError.
func Resolve(ctx context.Context, originURL string) (Target, error) {
	var t Target
	host := defaultHost()
	var r Target
	var err error
	switch {
	case os.Getenv("GH_REPO") != "":
		r, err = parseRepo(os.Getenv("GH_REPO"), host)
		if err != nil {
			return t, &RepoError{GHRepo: os.Getenv("GH_REPO"), Err: err}
		}
	case originURL != "":
		r, err = parseRemoteURL(originURL)
		if err != nil {
			return t, &RepoError{Origin: originURL, Err: err}
		}
	default:
		return t, &RepoError{}
	}
	t.Host, t.Owner, t.Name = r.Host, r.Owner, r.Name
	t.Token = token(ctx, t.Host)
	if t.Token == "" {
		if err := ctx.Err(); err != nil {
			return t, &TokenError{Host: t.Host, Err: err}
		}
		return t, &TokenError{Host: t.Host}
	}
	if v := os.Getenv(APIURLEnv); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return t, &SettingError{Name: APIURLEnv, Value: v}
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		t.APIURL = u.String()
	}
	return t, nil
}

// RequestTimeout settles the limit of each request: TimeoutEnv when set,
// else configured ([github] timeout, already checked; "" when absent),
// else DefaultTimeout. A bad value is a *SettingError naming it.
func RequestTimeout(configured string) (time.Duration, error) {
	if v := os.Getenv(TimeoutEnv); v != "" {
		d, err := config.ParseTimeout(v)
		if err != nil {
			return 0, &SettingError{Name: TimeoutEnv, Value: v, Err: err}
		}
		return d, nil
	}
	if configured != "" {
		d, err := config.ParseTimeout(configured)
		if err != nil {
			return 0, &SettingError{Name: configTimeout, Value: configured, Err: err}
		}
		return d, nil
	}
	return DefaultTimeout, nil
}

// parseRemoteURL reads owner/name (and host) from a git remote URL:
// https://host/owner/name(.git), ssh://git@host/owner/name, git@host:owner/name.
func parseRemoteURL(raw string) (Target, error) {
	s := raw
	if !strings.Contains(s, "://") {
		// scp-like: [user@]host:path
		at := strings.Index(s, "@")
		colon := strings.Index(s, ":")
		if colon < 0 || (at >= 0 && colon < at) {
			return Target{}, fmt.Errorf("not a GitHub URL")
		}
		s = "ssh://" + s[:colon] + "/" + s[colon+1:]
	}
	u, err := url.Parse(s)
	if err != nil {
		return Target{}, err
	}
	if u.Scheme == "file" || u.Hostname() == "" {
		return Target{}, fmt.Errorf("a local path, not a GitHub URL")
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(u.Path, ".git"), "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Target{}, fmt.Errorf("path %q is not OWNER/REPO", u.Path)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "ssh.github.com") {
		host = "github.com"
	}
	return Target{Host: host, Owner: parts[0], Name: parts[1]}, nil
}
