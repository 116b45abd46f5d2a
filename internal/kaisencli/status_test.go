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

func kaisen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(kaisencli.Spec(), append([]string{"jj-kaisen"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestStatusRunsNoProcess: status only reads the ledger, so an agent
// polling it pays for no jj process: it answers with no jj on PATH at all,
// from the workspace root or any directory below it.
func TestStatusRunsNoProcess(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", repo}}); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(plan, []byte("# p\n\n### Task 1: one\n**Files:** `a.txt`\n\n### Task 2: two\n**Files:** `b.txt`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := kaisen(t, "-R", repo, "start", plan, "--yes"); code != 0 {
		t.Fatalf("start: exit %d: %s", code, stderr)
	}
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	t.Setenv("PATH", t.TempDir()) // no jj, no git
	for _, at := range []string{repo, sub} {
		code, stdout, stderr := kaisen(t, "-R", at, "status", "--json")
		if code != 0 {
			t.Fatalf("status --json in %s without jj on PATH: exit %d: %s", at, code, stderr)
		}
		if !strings.Contains(stdout, `"task": 2`) {
			t.Errorf("status --json in %s lacks the run's tasks:\n%s", at, stdout)
		}
	}
	code, _, stderr := kaisen(t, "-R", dir, "status", "--json")
	if code != 7 || !strings.Contains(stderr, "not inside a jj or git repository") {
		t.Errorf("status outside a repository: exit %d: %s; want 7 naming the problem", code, stderr)
	}
}
