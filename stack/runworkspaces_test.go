package stack

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
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

// TestJJWorkspaces holds a run's jj workspaces to what the driver relies
// on, on real jj: a workspace asked again as it is is adopted with the
// worker's files (the ledger's base is a commit SHA, jj's parents change
// IDs); a half-made one is made again; a collected commit is sealed under
// a new change described as the ticket; Keep records an earlier attempt's
// files; a released workspace is forgotten and its commit stays visible.
func TestJJWorkspaces(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := t.Context()
	dir := t.TempDir()
	out := func(dir, name string, args ...string) string {
		t.Helper()
		b, err := xec.Output(ctx, xec.Cmd{Name: name, Args: args, Dir: dir})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return strings.TrimSpace(string(b))
	}
	root := filepath.Join(dir, "repo")
	out(dir, "jj", "git", "init", "--no-colocate", root)
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("the app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out(root, "jj", "describe", "-m", "base")
	out(root, "jj", "new")
	base := out(root, "jj", "log", "--no-graph", "-r", "@-", "-T", "commit_id")
	v, err := OpenVCS(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := openWorkspaces(v, WorkspacesJJ, filepath.Join(dir, "wt"))
	if err != nil {
		t.Fatal(err)
	}
	asked := engine.Workspace{Name: "ticket/2", Base: []string{base}, Message: "#2: Schema"}
	ws, err := w.Provision(ctx, asked)
	if err != nil || ws.Path != w.Path("ticket/2") || !slices.Equal(ws.Base, []string{base}) {
		t.Fatalf("provision ticket/2: %+v, %v", ws, err)
	}
	if err := os.WriteFile(filepath.Join(ws.Path, "t2.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := w.Provision(ctx, asked); err != nil || again.Remade != "" {
		t.Errorf("provision of ticket/2 as it is: remade %q, %v; want it adopted", again.Remade, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Path, "t2.txt")); err != nil {
		t.Errorf("the worker's file went with the second provision: %v", err)
	}

	// A workspace jj's `workspace add` left on root() (killed between
	// its two operations) is made again.
	half := engine.Workspace{Name: "ticket/3", Base: []string{base}, Message: "#3: API"}
	out(root, "jj", "workspace", "add", "--no-colocate", "--name", "ticket/3", "-r", "root()", w.Path("ticket/3"))
	if got, err := w.Provision(ctx, half); err != nil || got.Remade == "" {
		t.Errorf("provision of the half-made ticket/3: remade %q, %v; want it made again", got.Remade, err)
	}

	p, err := w.Collect(ctx, ws)
	if err != nil || p.Empty() {
		t.Fatalf("collect ticket/2: %+v, %v", p, err)
	}
	sealed := out(ws.Path, "jj", "log", "--no-graph", "-r", "@", "-T", `description ++ "|" ++ parents.map(|c| c.commit_id()).join(",") ++ "|" ++ empty`)
	if want := "#2: Schema\n|" + p.Commit + "|true"; sealed != want {
		t.Errorf("after collect, ticket/2's @ is %q; want %q (an empty change on the collected commit)", sealed, want)
	}
	if again, err := w.Collect(ctx, ws); err != nil || again.Commit != p.Commit {
		t.Errorf("collect again: %+v, %v; want the same commit %s", again, err, p.Commit)
	}

	// An earlier attempt's files, never collected, are recorded by Keep.
	if err := os.WriteFile(filepath.Join(w.Path("ticket/3"), "t3.txt"), []byte("three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept, err := w.Keep(ctx, half)
	if err != nil || kept == "" {
		t.Fatalf("keep ticket/3: %q, %v", kept, err)
	}
	if gone, err := w.Keep(ctx, engine.Workspace{Name: "ticket/9", Base: []string{base}}); err != nil || gone != "" {
		t.Errorf("keep of a workspace never made: %q, %v; want nothing", gone, err)
	}
	for _, ws := range []engine.Workspace{ws, half, half} {
		if err := w.Release(ctx, ws); err != nil {
			t.Errorf("release %s: %v", ws.Name, err)
		}
	}
	if got := out(root, "jj", "workspace", "list", "-T", `name ++ "\n"`); got != "default" {
		t.Errorf("workspaces after release: %q", got)
	}
	for _, c := range []string{p.Commit, kept} {
		if got := out(root, "jj", "log", "--no-graph", "-r", "commit_id("+c+") & ::visible_heads()", "-T", "commit_id"); got != c {
			t.Errorf("commit %s after release: %q; want it visible", c, got)
		}
	}
}
