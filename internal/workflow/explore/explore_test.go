package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

// The document replaces the old one whole, its temporary file made in
// the scratch folder, none left anywhere.
func TestWriteAtomic(t *testing.T) {
	scratch, repo := t.TempDir(), t.TempDir()
	path := filepath.Join(repo, "docs", "findings.md")
	for _, text := range []string{"first\n", "second, longer\n"} {
		if err := writeAtomic(scratch, path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != text {
			t.Fatalf("after writing %q: %q, %v", text, got, err)
		}
	}
	for _, dir := range []string{scratch, filepath.Dir(path)} {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Name() != "findings.md" {
				t.Errorf("left in %s: %s", dir, e.Name())
			}
		}
	}
}

func TestFindingsPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs", "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		given, cwd, rel string
		code            exitcode.Code
	}{
		{"docs/f.md", root, "docs/f.md", exitcode.OK},
		{"f.md", filepath.Join(root, "docs"), "docs/f.md", exitcode.OK},
		{filepath.Join(root, "new", "f.md"), "/", "new/f.md", exitcode.OK},
		{"../f.md", root, "", exitcode.Usage},
		{".", root, "", exitcode.Usage},
		{".git/f.md", root, "", exitcode.Usage},
		{"docs/dir.md", root, "", exitcode.Usage},
		{"", root, "", exitcode.Usage},
	}
	for _, tt := range tests {
		rel, _, err := FindingsPath(root, tt.cwd, tt.given)
		if exitcode.Of(err) != tt.code || rel != tt.rel {
			t.Errorf("FindingsPath(%q from %s) = %q, %v; want %q, exit %d", tt.given, tt.cwd, rel, err, tt.rel, tt.code)
		}
	}
}

// TestKeepFindingsNeverOverwrites: a second, different copy of a killed
// explore's findings goes beside the first (a re-run cleanup may only
// find an older version jj recorded); the same content is kept once.
func TestKeepFindingsNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	r := &ExploreRun{Workspace: "openspec-explore-1", Findings: "docs/x.md"}
	first, err := keepFindings(dir, r, []byte("v2, the worker's last\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := keepFindings(dir, r, []byte("v1, as jj recorded it\n"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := keepFindings(dir, r, []byte("v1, as jj recorded it\n"))
	if err != nil {
		t.Fatal(err)
	}
	if second == first || again != second || !strings.HasSuffix(second, "-findings-2.md") {
		t.Errorf("kept at %s, then %s, then %s", first, second, again)
	}
	if data, _ := os.ReadFile(first); string(data) != "v2, the worker's last\n" {
		t.Errorf("the first copy became %q", data)
	}
}
