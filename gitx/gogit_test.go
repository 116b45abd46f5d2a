package gitx_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/xec"
)

// history builds, with the git CLI, a repository whose reads go-git must
// answer as git does: a merge, an annotated and a light tag, a branch
// whose name is also a tag's, refs packed (git pack-refs) and loose, a
// remote-tracking branch and its symbolic HEAD, a linked worktree on
// another branch, a file, a directory, a symbolic link and an executable.
func history(t testing.TB) (*fixture, string) {
	t.Helper()
	f := newFixture(t)
	d := f.dir
	commit(t, d, "b.txt", "b\n")
	run(t, d, "checkout", "-q", "-b", "side", "HEAD~1")
	commit(t, d, "side.txt", "side\n")
	run(t, d, "checkout", "-q", "main")
	run(t, d, "merge", "-q", "--no-edit", "side")
	if err := os.MkdirAll(filepath.Join(d, "dir", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "dir", "sub", "x.md"), []byte("x\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	run(t, d, "add", "-A")
	run(t, d, "commit", "-q", "-m", "tree\n\nwith a body")
	run(t, d, "tag", "-a", "-m", "release", "v1", "HEAD~1")
	run(t, d, "tag", "light", "side")
	run(t, d, "tag", "side-1-tag", "HEAD~2")
	run(t, d, "push", "-q", "origin", "main", "side")
	run(t, d, "fetch", "-q", "origin")
	run(t, d, "remote", "set-head", "origin", "main")
	run(t, d, "pack-refs", "--all")
	commit(t, d, "c.txt", "c\n") // a loose ref again, over the packed one
	run(t, d, "branch", "v1")    // a branch named like a tag
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, d, "worktree", "add", "-q", "-b", "feature", wt, "side")
	return f, wt
}

// TestGoGitReadsAgreeWithCLI: every read gitx answers in process gives
// what the git CLI gives, in the main work tree and in a linked worktree.
func TestGoGitReadsAgreeWithCLI(t *testing.T) {
	f, wt := history(t)
	ctx := t.Context()
	for _, dir := range []string{f.dir, wt, filepath.Join(f.dir, "dir")} {
		r := &gitx.Repo{Dir: dir}
		for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~2^2", "HEAD^", "HEAD^1~1", "HEAD^0", "main", "side", "feature",
			"v1", "light", "refs/tags/v1", "refs/heads/v1", "tags/light", "origin/main", "origin", "refs/remotes/origin/side",
			"side-1-tag", run(t, f.dir, "rev-parse", "HEAD~1"), run(t, f.dir, "rev-parse", "--short", "HEAD~1"),
			"main@{0}", ":/edit b", "nonesuch", "HEAD~40", "HEAD^3", "v1^{tree}"} {
			want, cliErr := xec.Output(ctx, xec.Cmd{Name: "git", Dir: dir, Args: []string{"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"}})
			got, err := r.Resolve(ctx, rev)
			if (err != nil) != (cliErr != nil) || (err == nil && got != strings.TrimSpace(string(want))) {
				t.Errorf("in %s: Resolve(%q) = %q, %v; git rev-parse: %q, %v", dir, rev, got, err, strings.TrimSpace(string(want)), cliErr)
			}
		}
		c, err := r.Commit(ctx, "HEAD~1")
		if err != nil {
			t.Fatal(err)
		}
		if want := run(t, dir, "log", "-1", "--format=%H %P|%s", "HEAD~1"); c.SHA+" "+strings.Join(c.Parents, " ")+"|"+c.Subject != want {
			t.Errorf("in %s: Commit(HEAD~1) = %+v, git log says %q", dir, c, want)
		}
		branch, err := r.CurrentBranch(ctx)
		if want := run(t, dir, "branch", "--show-current"); err != nil || branch != want {
			t.Errorf("in %s: CurrentBranch = %q, %v; want %q", dir, branch, err, want)
		}
		branches, err := r.Branches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for name, sha := range branches {
			got = append(got, sha+" "+name)
		}
		slices.Sort(got)
		want := strings.Split(run(t, dir, "for-each-ref", "--format=%(objectname) %(refname:lstrip=2)", "refs/heads/"), "\n")
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("in %s: Branches = %v, git for-each-ref says %v", dir, got, want)
		}
		for _, name := range []string{"refs/remotes/origin/HEAD", "refs/tags/v1", "refs/heads/main", "refs/heads/none"} {
			sha, ok, err := r.Ref(ctx, name)
			cli, cliErr := xec.Output(ctx, xec.Cmd{Name: "git", Dir: dir, Args: []string{"rev-parse", "--verify", "--quiet", name}})
			if err != nil || ok != (cliErr == nil) || (ok && sha != strings.TrimSpace(string(cli))) {
				t.Errorf("in %s: Ref(%s) = %q, %v, %v; git: %q, %v", dir, name, sha, ok, err, cli, cliErr)
			}
		}
		for _, pair := range [][2]string{{"main", "side"}, {"main~2", "main"}, {"side", "main~1"}, {"HEAD", "HEAD"}, {"HEAD", "side"}, {"main~3", "side"}} {
			base, err := r.MergeBase(ctx, pair[0], pair[1])
			if want := run(t, dir, "merge-base", pair[0], pair[1]); err != nil || base != want {
				t.Errorf("in %s: MergeBase(%s, %s) = %q, %v; git says %q", dir, pair[0], pair[1], base, err, want)
			}
			ok, err := r.IsAncestor(ctx, pair[0], pair[1])
			_, cliErr := xec.Output(ctx, xec.Cmd{Name: "git", Dir: dir, Args: []string{"merge-base", "--is-ancestor", pair[0], pair[1]}})
			if err != nil || ok != (cliErr == nil) {
				t.Errorf("in %s: IsAncestor(%s, %s) = %v, %v; git: %v", dir, pair[0], pair[1], ok, err, cliErr)
			}
		}
		names := []string{"HEAD:b.txt", "HEAD:dir", "HEAD:dir/sub/x.md", "HEAD:link", "HEAD~3:b.txt", "side:side.txt", "HEAD:none", "nonesuch:b.txt", "HEAD:dir/sub/", "HEAD:b.txt/x", "HEAD:link/x", "HEAD:dir/sub/x.md/y"}
		blobs, err := r.ReadFiles(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range names {
			typ, typErr := xec.Output(ctx, xec.Cmd{Name: "git", Dir: dir, Args: []string{"cat-file", "-t", n}})
			wantType := strings.TrimSpace(string(typ))
			if typErr != nil {
				wantType = ""
			}
			if blobs[i].Type != wantType || blobs[i].Exists != (wantType == "blob") {
				t.Errorf("in %s: ReadFiles %s = %+v; git cat-file -t: %q", dir, n, blobs[i], wantType)
				continue
			}
			if wantType == "blob" {
				if content := run(t, dir, "cat-file", "blob", n); strings.TrimSpace(string(blobs[i].Content)) != content {
					t.Errorf("in %s: ReadFiles %s = %q, git: %q", dir, n, blobs[i].Content, content)
				}
			}
		}
		tree, err := r.Tree(ctx, "HEAD~1")
		if want := run(t, dir, "rev-parse", "HEAD~1^{tree}"); err != nil || tree != want {
			t.Errorf("in %s: Tree(HEAD~1) = %q, %v; want %q", dir, tree, err, want)
		}
		url, err := r.RemoteURL(ctx, "origin")
		if want := run(t, dir, "config", "remote.origin.url"); err != nil || url != want {
			t.Errorf("in %s: RemoteURL = %q, %v; want %q", dir, url, err, want)
		}
		for _, b := range []string{"main", "side", "none"} {
			sha, ok, err := r.RemoteHead(ctx, "origin", b)
			ls := run(t, dir, "ls-remote", "--heads", "origin", "refs/heads/"+b)
			if err != nil || ok != (ls != "") || (ok && !strings.HasPrefix(ls, sha+"\t")) {
				t.Errorf("in %s: RemoteHead(origin, %s) = %q, %v, %v; git ls-remote: %q", dir, b, sha, ok, err, ls)
			}
		}
	}
}

// TestGoGitShallowAndBare: a shallow clone's edge, where go-git has no
// parent to read, is answered by git; a bare repository (jj's store is
// one) is read like a work tree.
func TestGoGitShallowAndBare(t *testing.T) {
	f, _ := history(t)
	ctx := t.Context()
	shallow := filepath.Join(t.TempDir(), "shallow")
	run(t, f.dir, "clone", "-q", "--depth", "1", "file://"+f.origin, shallow)
	r := &gitx.Repo{Dir: shallow}
	if _, err := r.Resolve(ctx, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(ctx, "HEAD~1"); err == nil {
		t.Error("Resolve(HEAD~1) past a shallow clone's edge found a commit")
	}
	main := run(t, f.dir, "rev-parse", "origin/main")
	ok, err := r.IsAncestor(ctx, "HEAD", "HEAD")
	if err != nil || !ok {
		t.Errorf("IsAncestor(HEAD, HEAD) in a shallow clone = %v, %v", ok, err)
	}
	bare := &gitx.Repo{Dir: f.origin}
	got, err := bare.Resolve(ctx, "main")
	if err != nil || got != main {
		t.Errorf("bare Resolve(main) = %q, %v; want %s", got, err, main)
	}
	blobs, err := bare.ReadFiles(ctx, []string{"main:b.txt"})
	if err != nil || !blobs[0].Exists || string(blobs[0].Content) != "b\n" {
		t.Errorf("bare ReadFiles(main:b.txt) = %+v, %v", blobs, err)
	}
}

// TestGoGitReadsNeedNoGit: the reads a kaisen wave, an apply and a
// publish lane make are answered in process: with no git to run, they
// still answer.
func TestGoGitReadsNeedNoGit(t *testing.T) {
	f, _ := history(t)
	ctx := t.Context()
	r := &gitx.Repo{Dir: f.dir, Bin: filepath.Join(t.TempDir(), "no-git")}
	head, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "main~1"); err != nil {
		t.Error(err)
	}
	if _, err := r.CurrentBranch(ctx); err != nil {
		t.Error(err)
	}
	if _, err := r.Branches(ctx); err != nil {
		t.Error(err)
	}
	if _, _, err := r.Ref(ctx, "refs/remotes/origin/HEAD"); err != nil {
		t.Error(err)
	}
	if ok, err := r.IsAncestor(ctx, "side", head); err != nil || !ok {
		t.Errorf("IsAncestor = %v, %v", ok, err)
	}
	if _, err := r.MergeBase(ctx, "main", "side"); err != nil {
		t.Error(err)
	}
	if b, err := r.ReadFiles(ctx, []string{"HEAD:b.txt", "HEAD:none"}); err != nil || !b[0].Exists || b[1].Exists {
		t.Errorf("ReadFiles = %+v, %v", b, err)
	}
	if _, err := r.Tree(ctx, "HEAD"); err != nil {
		t.Error(err)
	}
	if _, err := r.RemoteURL(ctx, "origin"); err != nil {
		t.Error(err)
	}
	if _, ok, err := r.RemoteHead(ctx, "origin", "main"); err != nil || !ok {
		t.Errorf("RemoteHead(origin, main) = %v, %v", ok, err)
	}
	// What needs git says so.
	if _, err := r.Resolve(ctx, "main@{0}"); err == nil {
		t.Error("Resolve(main@{0}) answered without git")
	}
}
