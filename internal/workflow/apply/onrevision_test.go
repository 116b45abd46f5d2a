package apply

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// TestCheckOnRevision: relay go puts @ on the proposal revision under one
// hold of the lock and apply starts under the next; apply goes on only
// when @ is still an empty change on that revision, and refuses (exit 5,
// naming the relay) when anything moved or filled @ in between.
func TestCheckOnRevision(t *testing.T) {
	ctx := t.Context()
	dir, jj := jjRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "proposal.md"), []byte("# p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jj("commit", "-m", "proposal")
	repo, err := jjx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := repo.CommitIDs(ctx, "@-")
	if err != nil || len(ids) != 1 {
		t.Fatalf("@- = %v, %v", ids, err)
	}
	rev := ids[0]
	env := &Env{Repo: repo, Out: io.Discard}

	if err := checkOnRevision(ctx, env, "add-x", rev); err != nil {
		t.Fatalf("@ empty on the revision: %v, want nil", err)
	}
	// @ filled in between
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = checkOnRevision(ctx, env, "add-x", rev)
	if exitcode.Of(err) != exitcode.NeedsChoice || !strings.Contains(err.Error(), "run `jj openspec relay go add-x` again") {
		t.Errorf("@ with an edit: %v (exit %d), want exit %d naming relay go", err, exitcode.Of(err), exitcode.NeedsChoice)
	}
	// @ moved onto another commit
	jj("new", "-m", "elsewhere")
	if err := checkOnRevision(ctx, env, "add-x", rev); exitcode.Of(err) != exitcode.NeedsChoice {
		t.Errorf("@ moved: %v, want exit %d", err, exitcode.NeedsChoice)
	}
}

// jjRepo makes a jj repository (not colocated) for a test, the test's
// jj isolated from the user's, and returns its folder and a jj that runs
// there, fails the test on an error and returns the trimmed output.
func jjRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := filepath.Join(t.TempDir(), "repo")
	if out, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", dir}}); err != nil {
		t.Fatalf("jj git init: %v\n%s", err, out)
	}
	return dir, func(args ...string) string {
		t.Helper()
		out, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Dir: dir, Args: args})
		if err != nil {
			t.Fatalf("jj %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
