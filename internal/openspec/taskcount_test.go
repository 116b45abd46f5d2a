package openspec_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/tasksmd"
)

// fragments are the pieces random task lines are built from: bullets,
// boxes, markers, spacing and text that sit on the edges of OpenSpec's
// checkbox grammar.
var fragments = [][]string{
	{"", " ", "  ", "\t", "\u00a0", "\ufeff", "    "},
	{"-", "*", "+", "1.", "12)", "1234567890.", "a.", "--", ""},
	{"", " ", "  ", "\t"},
	{"[", "[[", "("},
	{"", " ", "x", "X", "~", " x ", "  ", "✓", "😀", "xx", "]", "-"},
	{"]", "](", "][", "] ", ")"},
	{"", " ", "1.2 task", "done", "(link)", "[ref]", "\r", "\u2028tail", " 2.3a text\r"},
}

func randomTaskFile(r *rand.Rand, lines int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		for _, choices := range fragments {
			b.WriteString(choices[r.IntN(len(choices))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestTaskCountParity writes random tasks.md files and requires the
// completed/total counts of `openspec list --json` from tasksmd.CountTasks.
func TestTaskCountParity(t *testing.T) {
	t.Parallel() // beside the other suites running the CLI (batchWorkers bounds them)
	requireOpenSpec(t)
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	want := map[string]spec.TaskProgress{}
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("c%02d", i)
		content := randomTaskFile(r, 60)
		d := filepath.Join(dir, "openspec", "changes", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "tasks.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = tasksmd.CountTasks(content)
	}
	stampTree(t, dir)
	out, errOut, code := realOpenSpec(t, dir, "list", "--json")
	if code != 0 {
		t.Fatalf("openspec list: exit %d: %s", code, errOut)
	}
	var doc struct {
		Changes []listedChange `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Changes) != len(want) {
		t.Fatalf("openspec listed %d changes, want %d", len(doc.Changes), len(want))
	}
	total, done := 0, 0
	for _, w := range want {
		total += w.Total
		done += w.Completed
	}
	// The random lines must exercise both sides of the grammar.
	if total < 200 || total > 40*60-200 || done == 0 || done == total {
		t.Fatalf("degenerate sample: %d of %d lines are tasks, %d done", total, 40*60, done)
	}
	for _, c := range doc.Changes {
		w := want[c.Name]
		if c.CompletedTasks != w.Completed || c.TotalTasks != w.Total {
			b, _ := os.ReadFile(filepath.Join(dir, "openspec", "changes", c.Name, "tasks.md"))
			t.Errorf("%s: openspec %d/%d, tasksmd.CountTasks %d/%d\n%q", c.Name, c.CompletedTasks, c.TotalTasks, w.Completed, w.Total, b)
		}
	}
}
