package openspeccli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestPipelineConfirm drives the pipeline's confirmation with an injected
// stdin and terminal check: the set and its width are printed first; on a
// terminal only an explicit yes starts it; elsewhere (or with --json)
// --yes is needed, exit 5; a declined pipeline records nothing.
func TestPipelineConfirm(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	const question = "start the pipeline? [y/N] "
	tests := []struct {
		name     string
		terminal bool
		stdin    string
		args     []string
		code     int
		stderr   string
		asked    bool
		started  bool
	}{
		{name: "yes on a terminal", terminal: true, stdin: "y\n", asked: true, started: true},
		{name: "no on a terminal", terminal: true, stdin: "n\n", code: 5, stderr: "pipeline not started (declined)", asked: true},
		{name: "end of input", terminal: true, stdin: "", code: 5, stderr: "declined", asked: true},
		{name: "not a terminal", stdin: "y\n", code: 5, stderr: "re-run with --yes to start it"},
		{name: "json on a terminal", terminal: true, stdin: "y\n", args: []string{"--json"}, code: 5, stderr: "re-run with --yes"},
		{name: "not a terminal with --yes", args: []string{"--yes"}, started: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := pipelineRepo(t)
			var stdout, stderr bytes.Buffer
			args := append([]string{"jj-openspec", "-R", repo, "apply", "add-a", "add-b", "--no-push", "--verify", "true",
				"--worker", `mkdir -p src && echo x > src/x.txt && echo 'Status: DONE' > "$SPECSTACK_REPORT"`}, tt.args...)
			code := cliapp.RunStreams(openspeccli.Spec(), args, cliapp.Streams{
				In: strings.NewReader(tt.stdin), Out: &stdout, Err: &stderr,
				IsTerminal: func(any) bool { return tt.terminal },
			})
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			errs := stderr.String()
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs)
			}
			if asked := strings.Contains(errs, question); asked != tt.asked {
				t.Errorf("question put: %v, want %v; stderr:\n%s", asked, tt.asked, errs)
			}
			if i := strings.Index(errs, "apply: pipeline of 2 changes, 4 workspaces:"); i < 0 || (tt.asked && i > strings.Index(errs, question)) {
				t.Errorf("the set and its width are not printed before the question:\n%s", errs)
			}
			_, err := os.Stat(filepath.Join(repo, ".jj", "specstack", "jj-openspec", "pipeline.toml"))
			if started := err == nil; started != tt.started {
				t.Errorf("pipeline in the ledger: %v, want %v", started, tt.started)
			}
			if tt.started && !strings.Contains(stdout.String(), "add-b: landed; bookmark feat/add-b") {
				t.Errorf("summary lacks add-b's landing:\n%s", stdout.String())
			}
		})
	}
}

// pipelineRepo is a jj repository with two apply-ready changes, add-a
// and add-b, committed.
func pipelineRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	jj := func(args ...string) {
		t.Helper()
		if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: append([]string{"-R", repo}, args...)}); err != nil {
			t.Fatalf("jj %s: %v", strings.Join(args, " "), err)
		}
	}
	if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", repo}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"add-a", "add-b"} {
		for p, content := range map[string]string{
			"proposal.md":             "## Why\nUsers need " + c + ".\n\n## What Changes\n- " + c + "\n",
			"tasks.md":                "## 1. Work\n- [ ] 1.1 Add `src/x.txt`\n",
			"specs/" + c + "/spec.md": "## ADDED Requirements\n\n### Requirement: " + c + "\nThe system SHALL " + c + ".\n\n#### Scenario: Works\n- **WHEN** asked\n- **THEN** it works\n",
		} {
			full := filepath.Join(repo, "openspec", "changes", c, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	jj("commit", "-m", "artifacts")
	return repo
}
