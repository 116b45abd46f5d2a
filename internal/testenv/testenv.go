// Package testenv prepares tests that run the real jj and git: it finds
// them (failing under REQUIRE_JJ=1 instead of skipping) and isolates the
// environment from the user's configuration.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// AgentsEnv, when set, turns a missing agent CLI into a failure.
const AgentsEnv = "REQUIRE_AGENTS"

// FindAgent looks the agent CLI name (claude, codex) up on PATH. When it
// is missing it returns "", and an error saying how to provision it when
// REQUIRE_AGENTS is set.
func FindAgent(name string) (string, error) {
	path, err := xec.LookPath(name)
	if err == nil {
		return path, nil
	}
	if os.Getenv(AgentsEnv) != "" {
		return "", fmt.Errorf("%s not found on PATH and %s is set: run `make test`, which provisions it (testdata/tools/install-agents)", name, AgentsEnv)
	}
	return "", nil
}

// RequireAgent returns the path of the agent CLI name, failing the test
// (REQUIRE_AGENTS set) or skipping it when it is not on PATH.
func RequireAgent(t testing.TB, name string) string {
	t.Helper()
	path, err := FindAgent(name)
	if err != nil {
		t.Fatal(err)
	}
	if path == "" {
		t.Skipf("%s not found on PATH; `make test` provisions it (testdata/tools/install-agents)", name)
	}
	return path
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
	// The agent CLIs keep their sessions and settings here, never in the
	// user's own (CODEX_HOME must exist when set).
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return nil, err
	}
	gitConfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitConfig, []byte(GitConfig), 0o644); err != nil {
		return nil, err
	}
	vars := map[string]string{
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
		// No real credentials or endpoints of the model APIs reach a
		// test: internal/fakemodel sets its own.
		"ANTHROPIC_API_KEY":  "",
		"ANTHROPIC_BASE_URL": "",
		"OPENAI_API_KEY":     "",
		"OPENAI_BASE_URL":    "",
		"CLAUDE_CONFIG_DIR":  filepath.Join(home, ".claude"),
		"CODEX_HOME":         codexHome,
	}
	bin, err := jjWrapper(home)
	if err != nil {
		return nil, err
	}
	if bin != "" {
		vars["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	}
	return vars, nil
}

// jjEpoch is the first command's JJ_TIMESTAMP (2026-01-02T03:04:05Z, the
// git dates' instant), in Unix seconds.
const jjEpoch = 1767323045

// jjWrapper puts a jj in home/bin that runs the real one (the jj on PATH
// now) with JJ_RANDOMNESS_SEED and JJ_TIMESTAMP advanced per command, as
// jj's own tests do: one seed for every command would give each new change
// the same id. A lock keeps the count right for concurrent commands. It
// returns "" when no jj is on PATH (RequireJJ decides what that means).
func jjWrapper(home string) (string, error) {
	real, err := xec.LookPath("jj")
	if err != nil {
		return "", nil
	}
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	counter := filepath.Join(home, "jj-commands")
	// Only flock is a process of its own: the count and the timestamp are
	// the shell's builtins (jjEpoch's time of day plus n seconds, on its
	// day), so the wrapper costs one fork per jj command.
	script := fmt.Sprintf(`#!/bin/sh
exec 9>>%[1]s.lock && flock 9 || exit 1
n=0
[ -f %[1]s ] && read n <%[1]s
n=$((n + 1))
echo "$n" >%[1]s || exit 1
exec 9>&-
t=$((%[2]d %% 86400 + n %% 75000))
h=$((t / 3600)) m=$((t / 60 %% 60)) s=$((t %% 60))
[ $h -lt 10 ] && h=0$h
[ $m -lt 10 ] && m=0$m
[ $s -lt 10 ] && s=0$s
JJ_RANDOMNESS_SEED=$n JJ_TIMESTAMP=%[4]sT$h:$m:$s+00:00
export JJ_RANDOMNESS_SEED JJ_TIMESTAMP
exec %[3]s "$@"
`, shellQuote(counter), jjEpoch, shellQuote(real), time.Unix(jjEpoch, 0).UTC().Format("2006-01-02"))
	if err := writeExecutable(filepath.Join(bin, "jj"), []byte(script)); err != nil {
		return "", err
	}
	return bin, nil
}

// writeExecutable writes a program the test process is about to run. The
// write holds syscall.ForkLock for reading, so no command another test
// starts meanwhile can fork with the file's write descriptor and keep it
// open until its exec: the first run of the program would then fail with
// "text file busy" (ETXTBSY, golang.org/issue/22315).
func writeExecutable(name string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(name, data, 0o755)
}

// shellQuote quotes s as one sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Isolate points HOME and the jj/git configuration at a fresh temporary
// directory for the rest of the test (so it cannot run in parallel).
func Isolate(t testing.TB) {
	t.Helper()
	vars, err := Vars(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
}
