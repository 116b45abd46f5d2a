package gogh_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi/gogh"
)

// keyringGH makes the keyring the only source of a token: no token in
// the environment or gh's configuration, and a `gh` on PATH running
// script.
func keyringGH(t *testing.T, script string) {
	t.Helper()
	testenv.Isolate(t)
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_PATH", "GH_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestTokenFromKeyring: without a token in the environment or gh's
// configuration, gh-specstack's backend asks `gh auth token`.
func TestTokenFromKeyring(t *testing.T) {
	keyringGH(t, "echo gho_keyring\n")
	if got := (gogh.Backend{}).Auth().Token(t.Context(), "github.com"); got != "gho_keyring" {
		t.Errorf("token %q, want gho_keyring", got)
	}
}

// TestTokenEnvFirst: GH_TOKEN wins; gh is not run.
func TestTokenEnvFirst(t *testing.T) {
	keyringGH(t, "echo ran > \"$0.ran\"; echo gho_keyring\n")
	t.Setenv("GH_TOKEN", "gho_env")
	if got := (gogh.Backend{}).Auth().Token(t.Context(), "github.com"); got != "gho_env" {
		t.Errorf("token %q, want GH_TOKEN's gho_env", got)
	}
}

// TestTokenKeyringCancelled: a `gh auth token` that hangs ends with the
// caller's context (go-gh's own lookup runs it with no context and no
// deadline).
func TestTokenKeyringCancelled(t *testing.T) {
	keyringGH(t, "exec sleep 60\n")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	got := (gogh.Backend{}).Auth().Token(ctx, "github.com")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Token returned %s after the cancellation", took)
	}
	if got != "" {
		t.Errorf("token %q from a cancelled gh", got)
	}
}
