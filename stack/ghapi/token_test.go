package ghapi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// keyringGH makes the keyring the only source of a token: no token in
// the environment or gh's configuration, and a `gh` on PATH running
// script.
func keyringGH(t *testing.T, script string) {
	t.Helper()
	testenv.Isolate(t)
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", ghapi.APIURLEnv, "GH_PATH", "GH_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GH_REPO", "acme/app")
}

// Without a token in the environment or gh's configuration, the token is
// the one `gh auth token` prints, asked for the repository's host, from
// the secure storage.
func TestTokenFromKeyring(t *testing.T) {
	args := filepath.Join(t.TempDir(), "args")
	keyringGH(t, `echo "$@" > '`+args+`'
echo gho_keyring
`)
	got, err := ghapi.Resolve(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != "gho_keyring" {
		t.Errorf("token %q, want gh's gho_keyring", got.Token)
	}
	data, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("gh was not run: %v", err)
	}
	if a := strings.TrimSpace(string(data)); a != "auth token --secure-storage --hostname github.com" {
		t.Errorf("gh ran with %q", a)
	}
}

// GH_TOKEN wins; gh is not run.
func TestTokenEnvFirst(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	keyringGH(t, "echo ran > '"+ran+"'; echo gho_keyring\n")
	t.Setenv("GH_TOKEN", "gho_env")
	got, err := ghapi.Resolve(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != "gho_env" {
		t.Errorf("token %q, want GH_TOKEN's gho_env", got.Token)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("gh auth token ran although GH_TOKEN was set")
	}
}

// A `gh auth token` that hangs ends with the caller's context (Ctrl-C),
// not at its own limit (go-gh's own lookup runs it with no context and
// no deadline): Resolve says it was interrupted, not that there is no
// token.
func TestTokenKeyringCancelled(t *testing.T) {
	keyringGH(t, "exec sleep 60\n")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := ghapi.Resolve(ctx, "")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Resolve returned %s after the cancellation", took)
	}
	var te *ghapi.TokenError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) || err.Error() != "read the GitHub token for github.com: context canceled" {
		t.Fatalf("err = %v; want the interruption, a *TokenError wrapping context.Canceled", err)
	}
}
