package kaisencli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestWavePlanPrompt drives the wave-plan decision of `start` (the same
// code as `run`) with an injected stdin and terminal check: on a terminal
// only an explicit yes proceeds; elsewhere, or with --json, the plan is
// printed and the command exits 5 asking for --yes.
func TestWavePlanPrompt(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.md")
	// Tasks 1 and 2 both touch a.txt: an overlap needs a decision.
	if err := os.WriteFile(plan, []byte("# p\n\n### Task 1: one\n**Files:** `a.txt`\n\n### Task 2: two\n**Files:** `a.txt`, `b.txt`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const question = "Proceed with this wave plan? [y/N] "
	tests := []struct {
		name     string
		terminal bool
		stdin    string
		args     []string
		code     int
		stderr   string // a substring the stderr must hold
		asked    bool   // the question was put
		started  bool   // a run is in the ledger
	}{
		{name: "yes", terminal: true, stdin: "y\n", code: 0, asked: true, started: true},
		{name: "YES with spaces", terminal: true, stdin: "  YES \n", code: 0, asked: true, started: true},
		{name: "no", terminal: true, stdin: "n\n", code: 5, stderr: "wave plan declined: restructure the plan, or re-run with --yes", asked: true},
		{name: "empty line", terminal: true, stdin: "\n", code: 5, stderr: "wave plan declined", asked: true},
		{name: "end of input", terminal: true, stdin: "", code: 5, stderr: "wave plan declined", asked: true},
		{name: "not a terminal", terminal: false, stdin: "y\n", code: 5, stderr: "tasks overlap: review the wave plan above, then re-run with --yes"},
		{name: "json on a terminal", terminal: true, stdin: "y\n", args: []string{"--json"}, code: 5, stderr: "re-run with --yes"},
		{name: "not a terminal with --yes", terminal: false, args: []string{"--yes"}, code: 0, started: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := filepath.Join(dir, "repo"+string(rune('a'+i)))
			if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", repo}}); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"jj-kaisen", "-R", repo, "start", plan}, tt.args...)
			code := cliapp.RunStreams(kaisencli.Spec(), args, cliapp.Streams{
				In: strings.NewReader(tt.stdin), Out: &stdout, Err: &stderr,
				IsTerminal: func(any) bool { return tt.terminal },
			})
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
			if asked := strings.Contains(stderr.String(), question); asked != tt.asked {
				t.Errorf("question put: %v, want %v; stderr:\n%s", asked, tt.asked, stderr.String())
			}
			if tt.asked && !strings.Contains(stderr.String(), "Wave 1: Task 1 (a.txt)") {
				t.Errorf("the prompt does not show the wave plan first:\n%s", stderr.String())
			}
			if !tt.asked && tt.code == 5 && !strings.Contains(stdout.String(), "a.txt") {
				t.Errorf("the wave plan is not printed on stdout when no prompt is possible:\n%s", stdout.String())
			}
			_, status, _ := kaisenIn(t, repo, "status", "--json")
			if started := strings.Contains(status, `"task": 2`); started != tt.started {
				t.Errorf("run in the ledger: %v, want %v; status --json:\n%s", started, tt.started, status)
			}
		})
	}
}

func kaisenIn(t *testing.T, repo string, args ...string) (int, string, string) {
	t.Helper()
	return kaisen(t, append([]string{"-R", repo}, args...)...)
}
