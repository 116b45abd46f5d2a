package conflict_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

func TestRunMergeTool(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "output_f.txt")
	report := filepath.Join(dir, "report.jsonl")
	in := "a\n<<<<<<< conflict 1 of 1\n%%%%%%% diff from: base\n\\\\\\\\\\\\\\        to: left\n-b\n+L\n+++++++ right\nR\n>>>>>>> conflict 1 of 1 ends\nc\n"
	if err := os.WriteFile(out, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	// A strategy that cannot apply leaves the file and says so.
	_, err := conflict.RunMergeTool(conflict.MergeToolRequest{Strategy: conflict.Strategy{Kind: conflict.SideN, N: 3}, Output: out, Path: "f.txt", Report: report})
	if !errors.Is(err, conflict.ErrUnchanged) {
		t.Fatalf("side=3: err = %v, want ErrUnchanged", err)
	}
	if b, _ := os.ReadFile(out); string(b) != in {
		t.Fatalf("side=3 rewrote the output: %q", b)
	}
	res, err := conflict.RunMergeTool(conflict.MergeToolRequest{Strategy: conflict.Strategy{Kind: conflict.Theirs}, Output: out, Path: "f.txt", Report: report})
	if err != nil || len(res.Resolved) != 1 {
		t.Fatalf("theirs: %v, %+v", err, res)
	}
	if b, _ := os.ReadFile(out); string(b) != "a\nR\nc\n" {
		t.Fatalf("theirs wrote %q", b)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("report has %d lines, want 2: %s", len(lines), b)
	}
	var last conflict.ToolReport
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Path != "f.txt" || len(last.Resolution.Resolved) != 1 || len(last.Resolution.Left) != 0 {
		t.Errorf("report = %+v", last)
	}
}
