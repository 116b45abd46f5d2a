package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/xec"
)

// childCommit makes, in git store gitDir, a commit on parent whose tree
// is parent's with file name set to body (as a runner pushes one), and
// returns it.
func childCommit(t *testing.T, gitDir, parent, name, body, message string) string {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	git := func(stdin string, args ...string) string {
		t.Helper()
		out, err := xec.Output(t.Context(), xec.Cmd{Name: "git", Args: args, Stdin: strings.NewReader(stdin),
			Env: []string{"GIT_DIR=" + gitDir, "GIT_INDEX_FILE=" + index, "GIT_AUTHOR_NAME=runner", "GIT_AUTHOR_EMAIL=r@example.com",
				"GIT_COMMITTER_NAME=runner", "GIT_COMMITTER_EMAIL=r@example.com"}})
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "read-tree", parent)
	blob := git(body, "hash-object", "-w", "--stdin")
	git("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+name)
	tree := git("", "write-tree")
	return git("", "commit-tree", tree, "-p", parent, "-m", message)
}

// TestTakeResult: a remote worker's commit is imported into jj and
// squashed into the workspace's @ (its files there, the commit in @'s
// evolution, nothing left visible, no branch or bookmark left); taken
// again (a resume after a kill) nothing changes; a commit writing into
// .jj is refused and nothing is taken.
func TestTakeResult(t *testing.T) {
	f := newFixture(t, "jj")
	ctx := t.Context()
	b := f.b.(*engine.JJBackend)
	ws, err := b.Provision(ctx, engine.Workspace{Name: "task-1", Base: []string{f.base}, Message: "Task 1: c"})
	if err != nil {
		t.Fatal(err)
	}
	base, err := b.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	gitDir, err := b.Repo.GitRoot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	result := childCommit(t, gitDir, base, "c.txt", "from the runner\n", "specstack r1 job 1-0\n\nStatus: DONE")
	name := engine.TakeBranch("r1/1-0")
	for i := range 2 {
		if err := b.TakeResult(ctx, ws, gitDir, name, base, result); err != nil {
			t.Fatalf("take %d: %v", i+1, err)
		}
		if got := read(t, ws.Path, "c.txt"); got != "from the runner\n" {
			t.Fatalf("take %d: c.txt = %q", i+1, got)
		}
		evolog := run(t, ws.Path, "jj", "evolog", "-r", "@", "--no-graph", "-T", `commit.commit_id() ++ "\n"`)
		if !strings.Contains(evolog, result) {
			t.Errorf("take %d: the runner's commit %s is not in @'s evolution:\n%s", i+1, result, evolog)
		}
		if strings.Count(evolog, result) != 1 {
			t.Errorf("take %d: the runner's commit taken more than once:\n%s", i+1, evolog)
		}
		visible := run(t, ws.Path, "jj", "log", "-r", "all()", "--no-graph", "-T", `commit_id ++ "\n"`)
		if strings.Contains(visible, result) {
			t.Errorf("take %d: the runner's commit is left visible", i+1)
		}
		if bm := run(t, ws.Path, "jj", "bookmark", "list", "--all-remotes"); bm != "" {
			t.Errorf("take %d: bookmarks left: %s", i+1, bm)
		}
		if refs := run(t, ws.Path, "git", "--git-dir", gitDir, "for-each-ref", "refs/heads/"); strings.Contains(refs, "specstack-take") {
			t.Errorf("take %d: branch left: %s", i+1, refs)
		}
	}
	if files := run(t, ws.Path, "jj", "diff", "--name-only", "-r", "@"); files != "c.txt" {
		t.Errorf("@ changes %q, want c.txt", files)
	}

	// A result writing into .jj: refused, nothing taken.
	now, err := b.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	bad := childCommit(t, gitDir, now, "sub/.jj/x", "x\n", "specstack r1 job 1-1")
	var me *gitx.MetadataError
	if err := b.TakeResult(ctx, ws, gitDir, engine.TakeBranch("r1/1-1"), now, bad); !errors.As(err, &me) {
		t.Fatalf("take of a .jj file: %v, want a MetadataError", err)
	}
	if _, err := os.Stat(filepath.Join(ws.Path, "sub")); !os.IsNotExist(err) {
		t.Errorf("a refused result wrote sub/: %v", err)
	}
}
