package stack

import (
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestOpenWorkspaces holds the one choice of a run's workspaces, on real
// git and jj: a new run takes the repository's kind; a ledger recorded
// before jj workspaces ("") goes on in git worktrees (of jj's store in a
// jj repository); a jj run resumed in a git clone is refused, naming why.
func TestOpenWorkspaces(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	mustRun := func(dir, name string, args ...string) {
		t.Helper()
		if err := xec.Run(t.Context(), xec.Cmd{Name: name, Args: args, Dir: dir}); err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
	}
	mustRun(dir, "git", "init", "-q", "clone")
	mustRun(dir, "jj", "git", "init", "--no-colocate", "jjrepo")
	for _, tc := range []struct {
		repo, recorded string
		wantKind       string // the kind a new run records
		want           string // "git", "jj" or "refused"
	}{
		{"clone", "", "git", "git"},
		{"clone", WorkspacesGit, "git", "git"},
		{"clone", WorkspacesJJ, "git", "refused"},
		{"jjrepo", "", "jj", "git"},
		{"jjrepo", WorkspacesGit, "jj", "git"},
		{"jjrepo", WorkspacesJJ, "jj", "jj"},
	} {
		v, err := OpenVCS(t.Context(), filepath.Join(dir, tc.repo))
		if err != nil {
			t.Fatal(err)
		}
		if kind, err := workspacesKind(v); err != nil || kind != tc.wantKind {
			t.Errorf("%s: a new run's workspaces = %q, %v; want %q", tc.repo, kind, err, tc.wantKind)
		}
		w, g, err := openWorkspaces(v, tc.recorded, filepath.Join(dir, "wt"))
		got := "refused"
		switch w.(type) {
		case gitWorkspaces:
			got = "git"
		case *jjWorkspaces:
			got = "jj"
		}
		if got != tc.want || (err == nil) == (tc.want == "refused") || (err == nil && g == nil) {
			t.Errorf("%s with %q recorded: %s (%v, store %v); want %s", tc.repo, tc.recorded, got, err, g, tc.want)
		}
		if err != nil && exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%s with %q recorded: %v; want a usage error", tc.repo, tc.recorded, err)
		}
	}
}
