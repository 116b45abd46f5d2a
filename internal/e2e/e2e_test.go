// Package e2e runs the testscript end-to-end suite (testdata/script) against
// the real jj and git, with the three binaries built into the test binary.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/stackcli"
)

// Commands are the programs scripts can exec, besides those on PATH.
var Commands = map[string]func(){
	"jj-openspec":  func() { os.Exit(cliapp.Run(openspeccli.Spec(), os.Args, os.Stdout, os.Stderr)) },
	"jj-kaisen":    func() { os.Exit(cliapp.Run(kaisencli.Spec(), os.Args, os.Stdout, os.Stderr)) },
	"gh-specstack": func() { os.Exit(cliapp.Run(stackcli.Spec(), os.Args, os.Stdout, os.Stderr)) },
}

func TestMain(m *testing.M) {
	testscript.Main(m, Commands)
}

// RequireJJ fails (REQUIRE_JJ set) or skips the test when no jj is on PATH.
func RequireJJ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jj"); err != nil {
		if os.Getenv("REQUIRE_JJ") != "" {
			t.Fatalf("jj not found on PATH and REQUIRE_JJ is set: run `make test`, which provisions jj (testdata/tools/install-jj)")
		}
		t.Skip("jj not found on PATH; `make test` provisions it")
	}
}

func TestScripts(t *testing.T) {
	RequireJJ(t)
	testscript.Run(t, Params(t, filepath.Join("..", "..", "testdata", "script")))
}

// Params returns testscript parameters with an isolated environment.
func Params(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup:               Setup,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	}
}

// Setup gives each script a private HOME, fixed identities for jj and git,
// and no access to the user's configuration.
func Setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	cfg := filepath.Join(home, ".config")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		return err
	}
	jjConfig := filepath.Join(home, "jjconfig.toml")
	if err := os.WriteFile(jjConfig, []byte(`[user]
name = "Test User"
email = "test@example.com"
[ui]
conflict-marker-style = "diff"
[snapshot]
auto-track = "all()"
`), 0o644); err != nil {
		return err
	}
	gitConfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitConfig, []byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"), 0o644); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("XDG_CONFIG_HOME", cfg)
	env.Setenv("JJ_CONFIG", jjConfig)
	env.Setenv("GIT_CONFIG_GLOBAL", gitConfig)
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("JJ_USER", "Test User")
	env.Setenv("JJ_EMAIL", "test@example.com")
	env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
	env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
	env.Setenv("TZ", "UTC")
	env.Setenv("NO_COLOR", "1")
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "GH_REPO", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"} {
		env.Setenv(k, "")
	}
	if p := os.Getenv("PATH"); !strings.Contains(env.Getenv("PATH"), p) {
		env.Setenv("PATH", p)
	}
	return nil
}
