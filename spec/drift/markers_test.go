package drift

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/spec"
)

// Conflict markers a rebase left are errors wherever they are; markers
// shown as an example in a Markdown code block (a design explaining
// conflicts) are not, unless they are jj's own ("<<<<<<< conflict 1 of 1"),
// which a rebase writes inside a code block too. OpenSpec validates and
// archives a change with such an example.
func TestMarkerIssuesFences(t *testing.T) {
	example := "# Design\n\n```text\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```\n"
	jjInFence := "# Design\n\n```go\n<<<<<<< conflict 1 of 1\n%%%%%%% diff from base to side #1\n-a\n+b\n+++++++ side #2\nc\n>>>>>>> conflict 1 of 1 ends\n```\n"
	bare := "# Design\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n"
	for _, tc := range []struct {
		name, file, body string
		want             int
	}{
		{"example in a fence", "design.md", example, 0},
		{"example in a tilde fence", "design.md", "~~~\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n~~~\n", 0},
		{"jj's markers in a fence", "design.md", jjInFence, 1},
		{"bare markers outside a fence", "design.md", bare, 1},
		{"a YAML file has no fences", ".openspec.yaml", "schema: spec-driven\n<<<<<<< HEAD\na: 1\n=======\na: 2\n>>>>>>> x\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ch := filepath.Join(dir, "openspec", "changes", "c")
			if err := os.MkdirAll(filepath.Join(dir, "openspec", "specs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(ch, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ch, tc.file), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := spec.FindRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			issues, err := MarkerIssues(r, "c")
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) != tc.want {
				t.Errorf("%d issues %+v, want %d", len(issues), issues, tc.want)
			}
		})
	}
}
