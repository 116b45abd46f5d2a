package jjx_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/jjx"
)

// TestSentinelErrors: jj's failures reach callers as values they match
// with errors.Is, read from real jj, so no caller parses jj's text.
func TestSentinelErrors(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := t.Context()
	pool := &jjx.Pool{Repo: r, Dir: filepath.Join(t.TempDir(), "ws")}
	ws, err := pool.Provision(ctx, "other", "other's change", "@-")
	if err != nil {
		t.Fatal(err)
	}
	before, err := r.OpHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The other workspace snapshots an edit; restoring the operation
	// before it leaves its working copy stale.
	writeFile(t, filepath.Join(ws.Path, "b.txt"), "b\n")
	if err := ws.Repo().Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.OpRestore(ctx, before); err != nil {
		t.Fatal(err)
	}
	_, err = ws.Repo().Log(ctx, "@")
	if !errors.Is(err, jjx.ErrStale) {
		t.Fatalf("log in a stale workspace: %v; want ErrStale", err)
	}
	if errors.Is(err, jjx.ErrNoWorkspace) {
		t.Errorf("stale: %v matches ErrNoWorkspace too", err)
	}
	if err := ws.Repo().UpdateStale(ctx); err != nil {
		t.Fatal(err)
	}
	if cs, err := ws.Repo().Log(ctx, "@"); err != nil || len(cs) != 1 {
		t.Errorf("after UpdateStale: %+v, %v", cs, err)
	}

	// Forgotten: a command in its directory has no workspace to run in.
	if err := r.WorkspaceForget(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	_, err = ws.Repo().Log(ctx, "@")
	if !errors.Is(err, jjx.ErrNoWorkspace) {
		t.Errorf("log in a forgotten workspace: %v; want ErrNoWorkspace", err)
	}
	if errors.Is(err, jjx.ErrStale) {
		t.Errorf("forgotten: %v matches ErrStale too", err)
	}
	// Forgetting an unknown name: jj 0.46 warns and succeeds, older jj
	// failed; either way it is no other error.
	if err := r.WorkspaceForget(ctx, "nonesuch"); err != nil && !errors.Is(err, jjx.ErrNoWorkspace) {
		t.Errorf("forget an unknown workspace: %v; want success or ErrNoWorkspace", err)
	}
}
