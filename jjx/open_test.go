package jjx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// TestOpenAgreesWithJJ: the workspace Open finds on the file system is the
// one `jj workspace root` prints, from the root, a subdirectory, a path
// through a symlink, a secondary workspace and a broken .jj.
func TestOpenAgreesWithJJ(t *testing.T) {
	r := newRepo(t, map[string]string{"sub/deep/a.txt": "a\n"})
	ctx := t.Context()
	second := filepath.Join(t.TempDir(), "second")
	if err := r.WorkspaceAdd(ctx, jjx.AddWorkspaceOptions{Name: "second", Path: second}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(r.Root, "sub"), link); err != nil {
		t.Fatal(err)
	}
	// A .jj without its repository is left to jj.
	broken := filepath.Join(t.TempDir(), "broken")
	if err := os.MkdirAll(filepath.Join(broken, ".jj", "working_copy"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{r.Root, filepath.Join(r.Root, "sub", "deep"), link, filepath.Join(link, "deep"), second, broken} {
		out, jjErr := xec.Output(ctx, xec.Cmd{Name: "jj", Dir: dir, Args: []string{"--ignore-working-copy", "workspace", "root"}})
		got, err := jjx.Open(ctx, dir)
		if (err != nil) != (jjErr != nil) {
			t.Fatalf("Open(%s) = %v; jj workspace root: %v", dir, err, jjErr)
		}
		if err != nil {
			continue
		}
		if want := strings.TrimSpace(string(out)); got.Root != want {
			t.Errorf("Open(%s).Root = %q, jj workspace root says %q", dir, got.Root, want)
		}
	}

}
