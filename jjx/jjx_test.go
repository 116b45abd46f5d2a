package jjx_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// newRepo makes a non-colocated jj repository with a described base
// change holding files, and an empty working-copy change on top.
func newRepo(t *testing.T, files map[string]string) *jjx.Repo {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := xec.Run(ctx, xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", dir}}); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	r, err := jjx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != dir {
		t.Fatalf("root %q, want %q", r.Root, dir)
	}
	if err := r.Describe(ctx, "@", "base"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.New(ctx, "", true); err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [3]int
	}{
		{"jj 0.46.0", [3]int{0, 46, 0}},
		{"jj 0.30.1-abcdef0123", [3]int{0, 30, 1}},
		{"1.2", [3]int{1, 2, 0}},
	} {
		v, err := jjx.ParseVersion(tc.in)
		if err != nil || [3]int{v.Major, v.Minor, v.Patch} != tc.want {
			t.Errorf("ParseVersion(%q) = %+v, %v; want %v", tc.in, v, err, tc.want)
		}
	}
	if _, err := jjx.ParseVersion("jj"); err == nil {
		t.Error("ParseVersion(\"jj\") succeeded")
	}
}

// TestTwoWorkspacesSquashedBack edits two workspaces on one base at the
// same time and squashes both into @.
func TestTwoWorkspacesSquashedBack(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	ctx := t.Context()
	pool := &jjx.Pool{Repo: r, Dir: filepath.Join(t.TempDir(), "ws")}

	edits := map[string]string{"w1": "a.txt", "w2": "b.txt"}
	wss := map[string]*jjx.Workspace{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for name, file := range edits {
		wg.Go(func() {
			ws, err := pool.Provision(ctx, name, "task "+name, "@-")
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			wss[name] = ws
			mu.Unlock()
			if err := os.WriteFile(filepath.Join(ws.Path, file), []byte(name+" was here\n"), 0o644); err != nil {
				errs <- err
				return
			}
			if err := ws.Repo().Snapshot(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	list, err := r.Workspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range list {
		names = append(names, w.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"default", "w1", "w2"}) {
		t.Fatalf("workspaces %v", names)
	}

	// One read answers for every workspace: by name (quoted, so a name
	// with revset syntax in it is only a name), a name jj does not know
	// left out.
	odd := `odd "name" |all()`
	if _, err := pool.Provision(ctx, odd, "odd", "@-"); err != nil {
		t.Fatal(err)
	}
	base, err := r.ChangeIDs(ctx, "@-")
	if err != nil {
		t.Fatal(err)
	}
	wcs, err := r.WorkingCopies(ctx, []string{"w1", "w2", odd, "nosuch"})
	if err != nil {
		t.Fatal(err)
	}
	if len(wcs) != 3 {
		t.Errorf("working copies %+v, want w1, w2 and %q", wcs, odd)
	}
	for _, name := range []string{"w1", "w2", odd} {
		if wc := wcs[name]; !slices.Equal(wc.ParentChangeIDs, base) || wc.CommitID == "" {
			t.Errorf("working copy of %q: %+v, want a commit on %v", name, wc, base)
		}
	}
	if err := r.WorkspaceForget(ctx, odd); err != nil {
		t.Fatal(err)
	}

	for name, file := range edits {
		files, err := r.Files(ctx, name+"@")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != file || files[0].Added != 1 || files[0].Removed != 1 {
			t.Fatalf("%s changed %+v, want %s +1 -1", name, files, file)
		}
		if err := r.Squash(ctx, jjx.SquashOptions{From: name + "@", Into: "@"}); err != nil {
			t.Fatal(err)
		}
		if err := pool.Release(ctx, wss[name]); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(wss[name].Path); !os.IsNotExist(err) {
			t.Errorf("%s still on disk after Release", wss[name].Path)
		}
	}
	if got := readFile(t, filepath.Join(r.Root, "a.txt")); got != "w1 was here\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(r.Root, "b.txt")); got != "w2 was here\n" {
		t.Errorf("b.txt = %q", got)
	}
	conflicted, err := r.ConflictedRevisions(ctx, "all()")
	if err != nil || len(conflicted) != 0 {
		t.Errorf("conflicted revisions %v, %v", conflicted, err)
	}
	list, _ = r.Workspaces(ctx)
	if len(list) != 1 {
		t.Errorf("workspaces after release: %+v", list)
	}
}

// TestConflictingSquashAndOpRestore squashes two edits of one line into
// @, sees the conflict reported, then restores the recorded operation.
func TestConflictingSquashAndOpRestore(t *testing.T) {
	r := newRepo(t, map[string]string{"shared.txt": "one\ntwo\nthree\n"})
	ctx := t.Context()
	before, err := r.OpHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logBefore, err := r.CommitIDs(ctx, "all()")
	if err != nil {
		t.Fatal(err)
	}
	pool := &jjx.Pool{Repo: r, Dir: filepath.Join(t.TempDir(), "ws")}
	for _, name := range []string{"left", "right"} {
		ws, err := pool.Provision(ctx, name, "edit by "+name, "@-")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws.Path, "shared.txt"), "one\n"+name+"\nthree\n")
		if err := ws.Repo().Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if err := r.Squash(ctx, jjx.SquashOptions{From: name + "@", Into: "@", Message: "combined"}); err != nil {
			t.Fatal(err)
		}
	}
	revs, err := r.ConflictedRevisions(ctx, "@")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 1 || !revs[0].Conflict {
		t.Fatalf("conflicted revisions of @: %+v", revs)
	}
	files, err := r.ConflictedFiles(ctx, "@")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"shared.txt"}) {
		t.Fatalf("conflicted files %v", files)
	}
	if body := readFile(t, filepath.Join(r.Root, "shared.txt")); !strings.Contains(body, "<<<<<<< conflict 1 of 1") || !strings.Contains(body, "%%%%%%% diff from") {
		t.Errorf("markers not in the pinned diff style:\n%s", body)
	}
	c, err := r.One(ctx, "@")
	if err != nil || c.Description != "combined\n" {
		t.Errorf("@ description %q, %v", c.Description, err)
	}

	if err := r.OpRestore(ctx, before); err != nil {
		t.Fatal(err)
	}
	logAfter, err := r.CommitIDs(ctx, "all()")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(logAfter, logBefore) {
		t.Errorf("op restore left history changed:\nbefore:\n%s\nafter:\n%s", logBefore, logAfter)
	}
	if got := readFile(t, filepath.Join(r.Root, "shared.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("shared.txt after restore = %q", got)
	}
	list, _ := r.Workspaces(ctx)
	if len(list) != 1 {
		t.Errorf("workspaces after restore: %+v (want only default)", list)
	}
	ops, err := r.OpLog(ctx, 3)
	if err != nil || len(ops) == 0 || !strings.Contains(ops[0].Description, "restore") {
		t.Errorf("op log head %+v, %v; want the restore", ops, err)
	}
}

func TestBookmarksAndNew(t *testing.T) {
	r := newRepo(t, map[string]string{"a": "1\n"})
	ctx := t.Context()
	id, err := r.New(ctx, "side work", false, "@-")
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.One(ctx, id)
	if err != nil || c.Description != "side work\n" || !c.Empty {
		t.Fatalf("new --no-edit: %+v %v", c, err)
	}
	if err := r.BookmarkSet(ctx, "feature", id, false); err != nil {
		t.Fatal(err)
	}
	bs, err := r.Bookmarks(ctx, "feature")
	if err != nil || len(bs) != 1 || bs[0].CommitID != c.CommitID || bs[0].Remote != "" {
		t.Fatalf("bookmarks %+v %v", bs, err)
	}
	if err := r.Abandon(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ids, _ := r.ChangeIDs(ctx, "description(substring:\"side work\")"); len(ids) != 0 {
		t.Errorf("abandoned change still visible: %v", ids)
	}
}

// TestTrackedAbsentRemoteBookmark lists a bookmark tracked at a remote
// that does not have it (as a declined push leaves it): it decodes, absent.
func TestTrackedAbsentRemoteBookmark(t *testing.T) {
	r := newRepo(t, map[string]string{"a": "1\n"})
	ctx := t.Context()
	origin := filepath.Join(t.TempDir(), "origin.git")
	if err := xec.Run(ctx, xec.Cmd{Name: "git", Args: []string{"init", "-q", "--bare", origin}}); err != nil {
		t.Fatal(err)
	}
	if err := xec.Run(ctx, xec.Cmd{Name: "jj", Args: []string{"git", "remote", "add", "origin", origin}, Dir: r.Root}); err != nil {
		t.Fatal(err)
	}
	if err := r.BookmarkSet(ctx, "feat/x", "@", false); err != nil {
		t.Fatal(err)
	}
	if err := r.BookmarkTrack(ctx, "feat/x", "origin"); err != nil {
		t.Fatal(err)
	}
	bs, err := r.Bookmarks(ctx, "feat/x")
	if err != nil {
		t.Fatalf("list a tracked, absent remote bookmark: %v", err)
	}
	var remote *jjx.Bookmark
	for i := range bs {
		if bs[i].Remote == "origin" {
			remote = &bs[i]
		}
	}
	if remote == nil || !remote.Tracked || remote.Present || remote.CommitID != "" {
		t.Fatalf("bookmarks %+v: want feat/x@origin tracked, absent, no commit", bs)
	}
}

func TestOpenOutsideRepo(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	_, err := jjx.Open(context.Background(), t.TempDir())
	if !errors.Is(err, jjx.ErrNotWorkspace) || !strings.Contains(err.Error(), "not in a jj workspace") {
		t.Fatalf("Open outside a repo: %v, want ErrNotWorkspace", err)
	}
}
