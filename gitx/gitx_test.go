package gitx_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// fixture is a clone of a bare origin with one commit on main, pushed.
type fixture struct {
	origin string
	dir    string
	repo   *gitx.Repo
}

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := xec.Output(context.Background(), xec.Cmd{Name: "git", Args: args, Dir: dir})
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func commit(t testing.TB, dir, file, body string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", file)
	run(t, dir, "commit", "-q", "-m", "edit "+file)
	return run(t, dir, "rev-parse", "HEAD")
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	testenv.Isolate(t)
	root := t.TempDir()
	f := &fixture{origin: filepath.Join(root, "origin.git"), dir: filepath.Join(root, "work")}
	run(t, root, "init", "-q", "--bare", f.origin)
	run(t, root, "clone", "-q", f.origin, f.dir)
	commit(t, f.dir, "a.txt", "a\n")
	run(t, f.dir, "push", "-q", "origin", "main")
	r, err := gitx.Open(t.Context(), filepath.Join(f.dir)) // from the root
	if err != nil {
		t.Fatal(err)
	}
	f.repo = r
	return f
}

func TestOpenFromSubdirectory(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := gitx.Open(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != f.dir {
		t.Errorf("Dir = %q, want %q", r.Dir, f.dir)
	}
	_, err = gitx.Open(t.Context(), t.TempDir())
	if !errors.As(err, new(*gitx.NotRepositoryError)) {
		t.Errorf("outside a repository: %v, want a *NotRepositoryError", err)
	}
}

func TestReads(t *testing.T) {
	f := newFixture(t)
	base := run(t, f.dir, "rev-parse", "HEAD")
	run(t, f.dir, "checkout", "-q", "-b", "feature")
	c1 := commit(t, f.dir, "b.txt", "b\n")
	run(t, f.dir, "checkout", "-q", "main")
	c2 := commit(t, f.dir, "c.txt", "c\n")

	tests := []struct {
		rev  string
		want string
	}{
		{"HEAD", c2},
		{"main", c2},
		{"feature", c1},
		{"refs/heads/feature", c1},
		{"refs/remotes/origin/main^{commit}", base},
		{"origin/main", base},
		{c1[:10], c1},
		{"main~1", base},
	}
	for _, tt := range tests {
		got, err := f.repo.Resolve(t.Context(), tt.rev)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.rev, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %s, want %s", tt.rev, got, tt.want)
		}
	}
	for _, bad := range []string{"nope", "refs/remotes/origin/nope", ""} {
		if _, err := f.repo.Resolve(t.Context(), bad); !errors.Is(err, gitx.ErrNoCommit) {
			t.Errorf("Resolve(%q) = %v, want ErrNoCommit", bad, err)
		}
	}

	if mb, err := f.repo.MergeBase(t.Context(), "main", "feature"); err != nil || mb != base {
		t.Errorf("MergeBase = %s, %v; want %s", mb, err, base)
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{base, "feature", true},
		{"feature", "main", false},
		{"main", "main", true},
	} {
		got, err := f.repo.IsAncestor(t.Context(), tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}

	if b, err := f.repo.CurrentBranch(t.Context()); err != nil || b != "main" {
		t.Errorf("CurrentBranch = %q, %v", b, err)
	}
	run(t, f.dir, "checkout", "-q", "--detach", "HEAD")
	if b, err := f.repo.CurrentBranch(t.Context()); err != nil || b != "" {
		t.Errorf("detached CurrentBranch = %q, %v; want empty", b, err)
	}

	c, err := f.repo.Commit(t.Context(), "feature")
	if err != nil || c.Subject != "edit b.txt" || !slices.Equal(c.Parents, []string{base}) {
		t.Errorf("Commit(feature) = %+v, %v", c, err)
	}
	branches, err := f.repo.Branches(t.Context())
	if err != nil || branches["feature"] != c1 || branches["main"] != c2 {
		t.Errorf("Branches = %v, %v", branches, err)
	}
	remote, err := f.repo.RemoteBranches(t.Context(), "origin")
	if err != nil || remote["main"] != base || len(remote) != 1 {
		t.Errorf("RemoteBranches = %v, %v", remote, err)
	}
	if u, err := f.repo.RemoteURL(t.Context(), "origin"); err != nil || u != f.origin {
		t.Errorf("RemoteURL = %q, %v; want %q", u, err, f.origin)
	}
	if sha, ok, err := f.repo.Ref(t.Context(), "refs/heads/feature"); err != nil || !ok || sha != c1 {
		t.Errorf("Ref = %s %v %v", sha, ok, err)
	}
	if _, ok, err := f.repo.Ref(t.Context(), "refs/heads/none"); err != nil || ok {
		t.Errorf("Ref(none) = %v %v, want absent", ok, err)
	}
}

// TestReadsSeeCLIWrites checks that a read after a CLI fetch sees the new
// refs and objects (every read is a fresh git process).
func TestReadsSeeCLIWrites(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(t.TempDir(), "other")
	run(t, "", "clone", "-q", f.origin, other)
	moved := commit(t, other, "x.txt", "x\n")
	run(t, other, "push", "-q", "origin", "main")
	if _, err := f.repo.Resolve(t.Context(), "origin/main"); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.Fetch(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	got, err := f.repo.Resolve(t.Context(), "refs/remotes/origin/main")
	if err != nil || got != moved {
		t.Errorf("after fetch origin/main = %s, %v; want %s", got, err, moved)
	}
	if c, err := f.repo.Commit(t.Context(), got); err != nil || c.Subject != "edit x.txt" {
		t.Errorf("fetched commit = %+v, %v", c, err)
	}
}

// TestReadEdges pins what the reads answer where git's CLI could surprise:
// revisions that look like options, tags, symbolic refs, unrelated
// histories and a multi-line message.
func TestReadEdges(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	head := run(t, f.dir, "rev-parse", "HEAD")
	for _, rev := range []string{"--all", "-h", "--output=x", "HEAD:a.txt"} {
		if _, err := f.repo.Resolve(ctx, rev); !errors.Is(err, gitx.ErrNoCommit) {
			t.Errorf("Resolve(%q) = %v, want ErrNoCommit", rev, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "x")); err == nil {
		t.Error("Resolve(--output=x) wrote a file: the revision was taken as an option")
	}

	run(t, f.dir, "tag", "-a", "-m", "release", "v1")
	if got, err := f.repo.Resolve(ctx, "v1"); err != nil || got != head {
		t.Errorf("Resolve(annotated tag) = %s, %v; want the commit %s", got, err, head)
	}
	tagObject := run(t, f.dir, "rev-parse", "refs/tags/v1")
	if sha, ok, err := f.repo.Ref(ctx, "refs/tags/v1"); err != nil || !ok || sha != tagObject {
		t.Errorf("Ref(refs/tags/v1) = %s %v %v; want the tag object %s", sha, ok, err, tagObject)
	}

	run(t, f.dir, "remote", "set-head", "origin", "main")
	if sha, ok, err := f.repo.Ref(ctx, "refs/remotes/origin/HEAD"); err != nil || !ok || sha != head {
		t.Errorf("Ref(symbolic origin/HEAD) = %s %v %v; want %s", sha, ok, err, head)
	}
	if remote, err := f.repo.RemoteBranches(ctx, "origin"); err != nil || len(remote) != 1 || remote["main"] != head {
		t.Errorf("RemoteBranches with origin/HEAD = %v, %v; want only main", remote, err)
	}
	if _, ok, err := f.repo.Ref(ctx, "refs/heads"); err != nil || ok {
		t.Errorf("Ref(refs/heads) = %v %v, want absent (a prefix is not a ref)", ok, err)
	}

	run(t, f.dir, "checkout", "-q", "--orphan", "lone")
	run(t, f.dir, "commit", "-q", "-m", "lone root\n\nbody line")
	if mb, err := f.repo.MergeBase(ctx, "main", "lone"); err != nil || mb != "" {
		t.Errorf("MergeBase(unrelated) = %q, %v; want none", mb, err)
	}
	if ok, err := f.repo.IsAncestor(ctx, "main", "lone"); err != nil || ok {
		t.Errorf("IsAncestor(unrelated) = %v, %v", ok, err)
	}
	if _, err := f.repo.IsAncestor(ctx, "main", "nope"); !errors.Is(err, gitx.ErrNoCommit) {
		t.Errorf("IsAncestor(main, nope) = %v, want ErrNoCommit", err)
	}
	if c, err := f.repo.Commit(ctx, "lone"); err != nil || c.Subject != "lone root" || len(c.Parents) != 0 {
		t.Errorf("Commit(lone) = %+v, %v", c, err)
	}
	if _, err := f.repo.RemoteURL(ctx, "upstream"); err == nil {
		t.Error("RemoteURL(upstream) of a clone with only origin: no error")
	}
}

func TestPushPublishOnce(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	run(t, f.dir, "checkout", "-q", "-b", "ticket/1")
	c1 := commit(t, f.dir, "t.txt", "1\n")

	res, err := f.repo.Push(ctx, "origin", "ticket/1", "ticket/1")
	if err != nil || res != gitx.Pushed {
		t.Fatalf("first push = %s, %v", res, err)
	}
	if got := run(t, f.origin, "rev-parse", "refs/heads/ticket/1"); got != c1 {
		t.Fatalf("origin has %s, want %s", got, c1)
	}
	res, err = f.repo.Push(ctx, "origin", "ticket/1", "ticket/1")
	if err != nil || res != gitx.AlreadyPublished {
		t.Fatalf("second push = %s, %v; want already-published", res, err)
	}

	// A local fast-forward is still refused: the branch is published.
	c2 := commit(t, f.dir, "t.txt", "2\n")
	_, err = f.repo.Push(ctx, "origin", "ticket/1", "ticket/1")
	if !errors.Is(err, gitx.ErrRemoteMoved) {
		t.Fatalf("push over published branch: %v, want ErrRemoteMoved", err)
	}
	for _, want := range []string{"ticket/1", c1[:12], c2[:12], "never overwrites"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if got := run(t, f.origin, "rev-parse", "refs/heads/ticket/1"); got != c1 {
		t.Fatalf("origin moved to %s after a refused push", got)
	}

	if sha, ok, err := f.repo.RemoteHead(ctx, "origin", "ticket/1"); err != nil || !ok || sha != c1 {
		t.Errorf("RemoteHead = %s %v %v", sha, ok, err)
	}
	if _, ok, err := f.repo.RemoteHead(ctx, "origin", "ticket/9"); err != nil || ok {
		t.Errorf("RemoteHead(absent) = %v %v", ok, err)
	}
	if _, err := f.repo.Push(ctx, "origin", "x", "no-such-rev"); !errors.As(err, new(*gitx.RevisionError)) || !errors.Is(err, gitx.ErrNoCommit) {
		t.Errorf("push of a missing rev: %v, want a *RevisionError", err)
	}
	// Several at once, in process and through ls-remote (a remote whose
	// URL is not a local path: insteadOf makes it this one).
	run(t, f.dir, "config", "url."+f.origin+".insteadOf", "example://origin")
	for _, remote := range []string{"origin", "example://origin"} {
		heads, err := f.repo.RemoteHeads(ctx, remote, "ticket/1", "ticket/9", "main")
		if err != nil || len(heads) != 2 || heads["ticket/1"] != c1 || heads["main"] == "" {
			t.Errorf("RemoteHeads(%s) = %v, %v", remote, heads, err)
		}
		got, err := f.repo.FetchBranches(ctx, remote, map[string]string{"ticket/1": "refs/specstack/t1", "ticket/9": "refs/specstack/t9"})
		if err != nil || len(got) != 1 || got["ticket/1"] != c1 {
			t.Errorf("FetchBranches(%s) = %v, %v", remote, got, err)
		}
		if sha := run(t, f.dir, "rev-parse", "refs/specstack/t1"); sha != c1 {
			t.Errorf("refs/specstack/t1 = %s after FetchBranches(%s)", sha, remote)
		}
		run(t, f.dir, "update-ref", "-d", "refs/specstack/t1")
	}
}

func TestWorktreesAndRebase(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	base := run(t, f.dir, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	if err := f.repo.WorktreeAdd(ctx, wt, "ticket/2", base); err != nil {
		t.Fatal(err)
	}
	commit(t, wt, "w.txt", "w\n")
	// main moves on
	newMain := commit(t, f.dir, "m.txt", "m\n")

	list, err := f.repo.Worktrees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Path != f.dir || list[1].Branch != "ticket/2" {
		t.Fatalf("Worktrees = %+v", list)
	}

	if err := f.repo.RebaseOnto(ctx, wt, newMain, base, "ticket/2"); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.repo.IsAncestor(t.Context(), newMain, "ticket/2"); err != nil || !ok {
		t.Errorf("after rebase main is not an ancestor of ticket/2: %v %v", ok, err)
	}

	// A conflicting rebase is aborted and leaves the branch alone.
	wt2 := filepath.Join(t.TempDir(), "wt2")
	if err := f.repo.WorktreeAdd(ctx, wt2, "ticket/3", base); err != nil {
		t.Fatal(err)
	}
	before := commit(t, wt2, "m.txt", "conflicting\n")
	err = f.repo.RebaseOnto(ctx, wt2, newMain, base, "ticket/3")
	if rc := (*gitx.RebaseConflictError)(nil); !errors.As(err, &rc) || rc.Branch != "ticket/3" {
		t.Fatalf("conflicting rebase: %v, want a *RebaseConflictError for ticket/3", err)
	}
	if got := run(t, wt2, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD after aborted rebase = %s, want %s", got, before)
	}

	// Remove refuses a dirty work tree and removes a clean one.
	if err := os.WriteFile(filepath.Join(wt, "dirty.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.WorktreeRemove(ctx, wt); err == nil {
		t.Error("removed a work tree with untracked changes")
	}
	if err := f.repo.WorktreeRemove(ctx, wt2); err != nil {
		t.Fatal(err)
	}
	list, _ = f.repo.Worktrees(ctx)
	if len(list) != 2 {
		t.Errorf("after remove: %+v", list)
	}

	// Detached work tree.
	wt3 := filepath.Join(t.TempDir(), "wt3")
	if err := f.repo.WorktreeAdd(ctx, wt3, "", base); err != nil {
		t.Fatal(err)
	}
	list, _ = f.repo.Worktrees(ctx)
	if last := list[len(list)-1]; !last.Detached || last.HEAD != base {
		t.Errorf("detached entry = %+v", last)
	}
}

// TestBareRepository reads refs of a bare repository (the origin itself).
func TestBareRepository(t *testing.T) {
	f := newFixture(t)
	head := run(t, f.dir, "rev-parse", "HEAD")
	bare := &gitx.Repo{Dir: f.origin}
	if sha, ok, err := bare.Ref(t.Context(), "refs/heads/main"); err != nil || !ok || sha != head {
		t.Errorf("bare Ref(main) = %s %v %v; want %s", sha, ok, err, head)
	}
	if got, err := bare.Resolve(t.Context(), "main"); err != nil || got != head {
		t.Errorf("bare Resolve(main) = %s %v", got, err)
	}
}

// TestRefReadsWhileGitWritesAnother: git writes a ref through a lock
// file it creates empty and then fills and renames into place; go-git
// reads every file under refs/, lock files too. A read of one ref never
// fails on another's lock; a listing waits the lock out (a run's
// background baseline read its ref while the run pushed: "ref file is
// empty").
func TestRefReadsWhileGitWritesAnother(t *testing.T) {
	f := newFixture(t)
	head := run(t, f.dir, "rev-parse", "HEAD")
	run(t, f.dir, "branch", "other")
	lock := filepath.Join(f.dir, ".git", "refs", "heads", "ticket.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if sha, ok, err := f.repo.Ref(t.Context(), "refs/heads/other"); err != nil || !ok || sha != head {
		t.Errorf("Ref(refs/heads/other) = %s, %v, %v with a lock file beside it; want %s", sha, ok, err, head)
	}
	if _, ok, err := f.repo.Ref(t.Context(), "refs/heads/missing"); err != nil || ok {
		t.Errorf("Ref(refs/heads/missing) = %v, %v; want not found", ok, err)
	}
	// git finishes the write: the lock becomes the ref.
	go func() {
		time.Sleep(50 * time.Millisecond)
		if err := os.WriteFile(lock, []byte(head+"\n"), 0o644); err == nil {
			_ = os.Rename(lock, strings.TrimSuffix(lock, ".lock"))
		}
	}()
	branches, err := f.repo.Branches(t.Context())
	if err != nil {
		t.Fatalf("Branches while a ref is written: %v", err)
	}
	if branches["other"] != head {
		t.Errorf("Branches = %v; want other at %s", branches, head)
	}
}
