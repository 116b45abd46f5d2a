package ghapi_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// fakeGH puts a `gh` running script on PATH (and nothing in GH_PATH or
// the environment's tokens), for Lean's `gh auth token`.
func fakeGH(t *testing.T, script string) {
	t.Helper()
	testenv.Isolate(t)
	for _, k := range []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", ghapi.APIURLEnv, "GH_PATH", "GH_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("GH_CONFIG_DIR", t.TempDir()) // no hosts.yml
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GH_REPO", "acme/app")
}

// The token `gh auth token` prints (asked for the repository's host, from
// the secure storage) is the token.
func TestLeanTokenFromGH(t *testing.T) {
	args := filepath.Join(t.TempDir(), "args")
	fakeGH(t, `echo "$@" > '`+args+`'
echo gho_from_gh
`)
	got, err := ghapi.Resolve(t.Context(), ghapi.Lean{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != "gho_from_gh" {
		t.Errorf("token %q, want gh's gho_from_gh", got.Token)
	}
	data, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("gh was not run: %v", err)
	}
	if a := strings.TrimSpace(string(data)); a != "auth token --secure-storage --hostname github.com" {
		t.Errorf("gh ran with %q", a)
	}
}

// A `gh auth token` that hangs ends with the caller's context (Ctrl-C),
// not at its own limit: Resolve says it was interrupted, not that there
// is no token.
func TestLeanTokenCancelled(t *testing.T) {
	fakeGH(t, "exec sleep 60\n")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := ghapi.Resolve(ctx, ghapi.Lean{}, "")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Resolve returned %s after the cancellation", took)
	}
	if exitcode.Of(err) != exitcode.Interrupted || err == nil || !strings.Contains(err.Error(), "read the GitHub token for github.com: context canceled") {
		t.Fatalf("err = %v (exit %d); want the interruption (exit %d)", err, exitcode.Of(err), exitcode.Interrupted)
	}
}

// One Auth reads gh's hosts.yml once: the default host and the token are
// answers from the same reading, even when the file changes in between.
func TestLeanAuthReadsHostsOnce(t *testing.T) {
	fakeGH(t, "exit 1\n")
	dir := t.TempDir()
	t.Setenv("GH_CONFIG_DIR", dir)
	hosts := filepath.Join(dir, "hosts.yml")
	if err := os.WriteFile(hosts, []byte("ghe.example.com:\n    oauth_token: first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auth := ghapi.Lean{}.Auth()
	host := auth.DefaultHost()
	if host != "ghe.example.com" {
		t.Fatalf("default host %q, want hosts.yml's one host", host)
	}
	if err := os.WriteFile(hosts, []byte("ghe.example.com:\n    oauth_token: second\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok := auth.Token(t.Context(), host); tok != "first" {
		t.Errorf("token %q; want %q, from the reading that gave the default host", tok, "first")
	}
	if tok := (ghapi.Lean{}).Auth().Token(t.Context(), host); tok != "second" {
		t.Errorf("a new Auth's token %q; want the file's %q now", tok, "second")
	}
}
