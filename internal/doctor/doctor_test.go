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
	gitAlone(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := gitRepo(t, t.TempDir())

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

// gitAlone leaves git, and nothing else, on PATH for the test.
func gitAlone(t *testing.T) {
	t.Helper()
	git, err := xec.LookPath("git")
	if err != nil {
		t.Fatal("git not found")
	}
	bin := t.TempDir()
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
}

// gitRepo makes dir (and its parents) a git repository without jj, as
// far as repo.Find can tell, and returns it.
func gitRepo(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
