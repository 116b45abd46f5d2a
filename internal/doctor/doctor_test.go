package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/xec"
)

// TestJJOptionalForGitStacks: without jj, a git repository is fine for
// gh-specstack and a problem for the jj binaries.
func TestJJOptionalForGitStacks(t *testing.T) {
	git, err := xec.LookPath("git")
	if err != nil {
		t.Fatal("git not found")
	}
	bin := t.TempDir()
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)

	rep := Gather(t.Context(), "gh-specstack", "test", dir)
	if !rep.OK() || rep.JJ.Found || rep.RepoKind != "git" || !rep.Git.OK {
		t.Errorf("gh-specstack in git without jj: %+v", rep)
	}
	rep = Gather(t.Context(), "jj-kaisen", "test", dir)
	if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), "jj not found") {
		t.Errorf("jj-kaisen without jj: problems %q", rep.Problems)
	}
	if !strings.Contains(rep.Text(), "jj: not found (need >= 0.30.0)") {
		t.Errorf("text:\n%s", rep.Text())
	}
}
