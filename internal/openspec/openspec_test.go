package openspec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		line string
		name string
	}{
		{"Rules for 'tasks' must be an array of strings, ignoring this artifact's rules\n", "tasks-rules-not-array"},
		{`Unknown artifact ID in rules: "nosuch". It matches no artifact`, "unknown-artifact-id-in-rules"},
		{"Rules for 'design' must be an array of strings\n", ""},
		{"Error: change not found\n", ""},
	}
	for _, tt := range tests {
		f, ok := openspec.Match(tt.line)
		if ok != (tt.name != "") || f.Name != tt.name {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.line, f.Name, ok, tt.name)
		}
	}
}

func TestNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := openspec.Run(t.Context(), openspec.Cmd{Args: []string{"--version"}})
	if !errors.Is(err, openspec.ErrNotFound) || exitcode.Of(err) != exitcode.Missing {
		t.Fatalf("err = %v (code %d), want ErrNotFound with exit code 7", err, exitcode.Of(err))
	}
	if !strings.Contains(err.Error(), "openspec CLI not found on PATH") {
		t.Errorf("message %q does not say what is missing", err)
	}
}

// TestRunFilters runs the real CLI on a project whose config triggers the
// two allow-listed warnings: they are dropped, every other stderr line
// passes through, and stdout is untouched.
func TestRunFilters(t *testing.T) {
	requireOpenSpec(t)
	dir := t.TempDir()
	write(t, dir, "openspec/config.yaml", "schema: spec-driven\nrules:\n  tasks: \"one string\"\n  nosuch:\n    - a rule\n")
	write(t, dir, "openspec/changes/x/proposal.md", "## Why\nA reason.\n")
	stdout, stderr, res, err := openspec.Output(t.Context(), dir, "instructions", "tasks", "--change", "x")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	if strings.Join(res.Dropped, ",") != "tasks-rules-not-array,unknown-artifact-id-in-rules" {
		t.Errorf("dropped %q", res.Dropped)
	}
	if s := string(stderr); strings.Contains(s, "must be an array") || strings.Contains(s, "Unknown artifact ID") {
		t.Errorf("allow-listed lines leaked: %q", s)
	}
	if !strings.Contains(string(stderr), "Generating instructions") {
		t.Errorf("other stderr lines were dropped: %q", stderr)
	}
	if !strings.Contains(string(stdout), "tasks") {
		t.Errorf("stdout lost: %q", stdout)
	}
}

// TestRunExitCode checks the CLI's exit code comes back unchanged.
func TestRunExitCode(t *testing.T) {
	requireOpenSpec(t)
	dir := t.TempDir()
	write(t, dir, "openspec/changes/x/proposal.md", "## Why\nA reason.\n")
	_, stderr, res, err := openspec.Output(t.Context(), dir, "validate", "no-such-change")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || !strings.Contains(string(stderr), "Unknown item 'no-such-change'") {
		t.Errorf("exit %d, stderr %q; want 1 and the CLI's own message", res.ExitCode, stderr)
	}
	v, err := openspec.Version(t.Context())
	if err != nil || !strings.HasPrefix(v, "1.13.") {
		t.Errorf("Version = %q, %v; want 1.13.x", v, err)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
