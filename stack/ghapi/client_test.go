package ghapi_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// guard fails the test when a request goes anywhere but host.
type guard struct {
	t    *testing.T
	host string
}

func (g guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != g.host {
		g.t.Errorf("request to %s: only the fake GitHub at %s may be contacted", req.URL, g.host)
		return nil, fmt.Errorf("blocked by the test guard")
	}
	return http.DefaultTransport.RoundTrip(req)
}

// fake starts a fake GitHub holding acme/app, whose origin has main and
// feature, and returns a client for it and the state.
func fake(t *testing.T) (*ghapi.Client, *fakegh.Server) {
	t.Helper()
	testenv.Isolate(t)
	origin, _ := testenv.Origin(t, t.TempDir(), nil, "feature")
	st := fakegh.NewState()
	st.AddRepo("acme", "app", origin, "main")
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t0ken", APIURL: hs.URL + "/"},
		guard{t: t, host: strings.TrimPrefix(hs.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestClientAgainstFake(t *testing.T) {
	c, srv := fake(t)
	ctx := t.Context()
	srv.Do(func(st *fakegh.State) {
		r := st.Repo("acme/app")
		spec := r.AddIssue("Spec", "body", nil, false)
		for i := 0; i < 130; i++ {
			sub := r.AddIssue(fmt.Sprintf("T%d", i), "", []string{"Ready-For-Human"}, false)
			if err := r.AddSubIssue(spec.Number, sub.Number); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.AddBlockedBy(3, 2); err != nil {
			t.Fatal(err)
		}
	})

	repo, err := c.Repository(ctx)
	if err != nil || repo.DefaultBranch != "main" || repo.FullName != "acme/app" {
		t.Fatalf("Repository = %+v, %v", repo, err)
	}
	subs, err := c.SubIssues(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 130 || subs[0].Number != 2 || subs[129].Number != 131 {
		t.Fatalf("SubIssues across pages: %d, first %d", len(subs), subs[0].Number)
	}
	if !subs[0].HasLabel("ready-for-human") {
		t.Errorf("labels are compared case-insensitively: %+v", subs[0].Labels)
	}
	deps, err := c.BlockedBy(ctx, 3)
	if err != nil || len(deps) != 1 || deps[0].Number != 2 {
		t.Errorf("BlockedBy = %+v, %v", deps, err)
	}

	p, err := c.CreatePull(ctx, ghapi.NewPull{Title: "F", Head: "feature", Base: "main", Draft: true})
	if err != nil || !p.Draft || p.Head.Ref != "feature" || len(p.Head.SHA) != 40 {
		t.Fatalf("CreatePull = %+v, %v", p, err)
	}
	_, err = c.CreatePull(ctx, ghapi.NewPull{Title: "X", Head: "nope", Base: "main"})
	if !ghapi.IsStatus(err, 422) || !strings.Contains(err.Error(), "POST /repos/acme/app/pulls: HTTP 422: Validation Failed") {
		t.Errorf("bad head: %v", err)
	}
	open, err := c.Pulls(ctx, ghapi.PullFilter{State: "open", Head: "feature"})
	if err != nil || len(open) != 1 || open[0].Number != p.Number {
		t.Errorf("Pulls(head=feature) = %+v, %v", open, err)
	}
	if err := c.MarkReady(ctx, p.NodeID); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Pull(ctx, p.Number); got.Draft {
		t.Error("still draft after MarkReady")
	}
	if err := c.MarkReady(ctx, "PR_nope"); err == nil || !strings.Contains(err.Error(), "Could not resolve") {
		t.Errorf("MarkReady(unknown) = %v", err)
	}
	if _, err := c.AddComment(ctx, 1, "hello"); err != nil {
		t.Fatal(err)
	}
	if cs, err := c.Comments(ctx, 1); err != nil || len(cs) != 1 || cs[0].Body != "hello" {
		t.Errorf("Comments = %+v, %v", cs, err)
	}

	if s, err := c.Stacks(ctx); err != nil || len(s) != 0 {
		t.Errorf("Stacks = %v, %v", s, err)
	}
	srv.Do(func(st *fakegh.State) { st.Repo("acme/app").StacksDisabled = true })
	if _, err := c.Stacks(ctx); !errors.Is(err, ghapi.ErrStacksDisabled) {
		t.Errorf("Stacks with stacks off = %v, want ErrStacksDisabled", err)
	}
}

func TestOverrideConfinesRequests(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token t0ken" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Link", `<https://api.github.com/repos/acme/app/issues/1/sub_issues?page=2>; rel="next"`)
		fmt.Fprint(w, `[]`)
	}))
	defer hs.Close()
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t0ken", APIURL: hs.URL + "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SubIssues(t.Context(), 1)
	if err == nil || !strings.Contains(err.Error(), "request to https://api.github.com/repos/acme/app/issues/1/sub_issues?page=2 refused") {
		t.Errorf("following a link off the override: %v", err)
	}
}

func TestRateLimitReported(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "1767323045")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"message":"API rate limit exceeded"}`)
	}))
	defer hs.Close()
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t", APIURL: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Issue(t.Context(), 5)
	var ge *ghapi.Error
	if !errors.As(err, &ge) || !ge.RateLimited {
		t.Fatalf("err = %v, want a rate-limited *ghapi.Error", err)
	}
	want := "GET /repos/acme/app/issues/5: HTTP 403: API rate limit exceeded; rate limited by GitHub until 2026-01-02T03:04:05Z: wait and re-run (not retried)"
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		origin  string
		want    string // owner/name@host, or "" for an error
		token   string // the token wanted, when not ""
		kind    string // the error's type, for an error
		message string
	}{
		{name: "GH_REPO", env: map[string]string{"GH_REPO": "acme/app", "GH_TOKEN": "x"}, want: "acme/app@github.com"},
		{name: "GH_REPO with host", env: map[string]string{"GH_REPO": "ghe.example.com/acme/app", "GH_ENTERPRISE_TOKEN": "x"}, want: "acme/app@ghe.example.com"},
		{name: "GH_HOST", env: map[string]string{"GH_HOST": "ghe.example.com", "GH_REPO": "acme/app", "GH_ENTERPRISE_TOKEN": "x"}, want: "acme/app@ghe.example.com"},
		{name: "https origin", env: map[string]string{"GH_TOKEN": "x"}, origin: "https://github.com/acme/app.git", want: "acme/app@github.com"},
		{name: "scp origin", env: map[string]string{"GH_TOKEN": "x"}, origin: "git@github.com:acme/app.git", want: "acme/app@github.com"},
		{name: "local origin", env: map[string]string{"GH_TOKEN": "x"}, origin: "/srv/origin.git", kind: "*ghapi.RepoError", message: "set GH_REPO=OWNER/REPO"},
		{name: "no origin", env: map[string]string{"GH_TOKEN": "x"}, kind: "*ghapi.RepoError", message: "no origin remote; set GH_REPO"},
		{name: "no token", env: map[string]string{"GH_REPO": "acme/app", "GH_PATH": "/nonexistent/gh"}, kind: "*ghapi.TokenError", message: "no GitHub token for github.com: run gh auth login or set GH_TOKEN"},
		{name: "bad API URL", env: map[string]string{"GH_REPO": "acme/app", "GH_TOKEN": "x", ghapi.APIURLEnv: "ftp://x"}, kind: "*ghapi.SettingError", message: "is not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testenv.Isolate(t)
			for _, k := range []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", ghapi.APIURLEnv, "GH_PATH", "GH_HOST"} {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := ghapi.Resolve(t.Context(), tt.origin)
			if tt.want == "" {
				if kind := fmt.Sprintf("%T", err); kind != tt.kind || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("err = %v (%s), want a %s containing %q", err, kind, tt.kind, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := got.Repo() + "@" + got.Host; s != tt.want {
				t.Errorf("got %s, want %s", s, tt.want)
			}
			if tt.token != "" && got.Token != tt.token {
				t.Errorf("token %q, want %q", got.Token, tt.token)
			}
		})
	}
}

// TestOverrideIPv6 reaches an override on an IPv6 literal, which go-gh's
// APIHost cannot name, with the token.

func TestOverrideIPv6(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token t0ken" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"full_name":"acme/app","default_branch":"trunk"}`)
	}))
	hs.Listener = ln
	hs.Start()
	defer hs.Close()
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t0ken", APIURL: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Repository(t.Context())
	if err != nil || r.DefaultBranch != "trunk" {
		t.Errorf("Repository = %+v, %v", r, err)
	}
}
