// Package testenv prepares tests that run the real jj and git: it finds
// them (failing under REQUIRE_JJ=1 instead of skipping) and isolates the
// environment from the user's configuration.
package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/xec"
)

// RequireJJ fails (REQUIRE_JJ set) or skips the test when no jj is on PATH.
func RequireJJ(t testing.TB) {
	t.Helper()
	if _, err := xec.LookPath("jj"); err != nil {
		if os.Getenv("REQUIRE_JJ") != "" {
			t.Fatalf("jj not found on PATH and REQUIRE_JJ is set: run `make test`, which provisions jj (testdata/tools/install-jj)")
		}
		t.Skip("jj not found on PATH; `make test` provisions it")
	}
}

// JJConfig is the jj configuration every test runs with.
const JJConfig = `[user]
name = "Test User"
email = "test@example.com"
[ui]
conflict-marker-style = "diff"
`

// GitConfig is the git configuration every test runs with.
const GitConfig = "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"

// Vars returns the isolating environment for a private home directory.
func Vars(home string) (map[string]string, error) {
	cfg := filepath.Join(home, ".config")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		return nil, err
	}
	jjConfig := filepath.Join(home, "jjconfig.toml")
	if err := os.WriteFile(jjConfig, []byte(JJConfig), 0o644); err != nil {
		return nil, err
	}
	gitConfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitConfig, []byte(GitConfig), 0o644); err != nil {
		return nil, err
	}
	return map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     cfg,
		"JJ_CONFIG":           jjConfig,
		"GIT_CONFIG_GLOBAL":   gitConfig,
		"GIT_CONFIG_NOSYSTEM": "1",
		"JJ_USER":             "Test User",
		"JJ_EMAIL":            "test@example.com",
		"GIT_AUTHOR_DATE":     "2026-01-02T03:04:05Z",
		"GIT_COMMITTER_DATE":  "2026-01-02T03:04:05Z",
		"TZ":                  "UTC",
		"NO_COLOR":            "1",
		"GH_TOKEN":            "",
		"GITHUB_TOKEN":        "",
		"GH_HOST":             "",
		"GH_REPO":             "",
	}, nil
}

// Isolate points HOME and the jj/git configuration at a fresh temporary
// directory for the rest of the test (so it cannot run in parallel).
func Isolate(t *testing.T) {
	t.Helper()
	vars, err := Vars(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
}
