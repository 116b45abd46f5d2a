package testenv_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/testenv"
)

// changeIDs makes a repository and two new changes in a fresh home and
// returns the ids and commit timestamps of its log.
func changeIDs(t *testing.T) string {
	t.Helper()
	testenv.Isolate(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"git", "init", "--no-colocate", dir},
		{"new", "-R", dir},
		{"new", "-R", dir},
		{"log", "-R", dir, "--no-pager", "--color=never", "--ignore-working-copy", "-T", `change_id ++ " " ++ committer.timestamp() ++ "\n"`, "--no-graph"},
	} {
		out, err := exec.CommandContext(t.Context(), "jj", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("jj %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "log" {
			return string(out)
		}
	}
	return ""
}

// Every jj a test runs gets its own seed and timestamp, the same from run
// to run: distinct change ids, reproducible across homes.
func TestJJSeedAndTimestampAdvance(t *testing.T) {
	testenv.RequireJJ(t)
	var first string
	t.Run("first", func(t *testing.T) { first = changeIDs(t) })
	var second string
	t.Run("second", func(t *testing.T) { second = changeIDs(t) })
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if len(lines) != 4 {
		t.Fatalf("log = %q, want 4 commits", first)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("repeated change id and timestamp %q in\n%s", l, first)
		}
		seen[l] = true
	}
	if first != second {
		t.Errorf("two fresh homes gave different logs:\n%s\n%s", first, second)
	}
	if !strings.Contains(first, "2026-01-02 03:04:") {
		t.Errorf("log = %q, want JJ_TIMESTAMP's date", first)
	}
}
