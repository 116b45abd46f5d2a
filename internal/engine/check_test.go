package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/jjx"
)

// TestCheckStoppedIsAnError: a workspace check whose read of the working
// copy is stopped (a cancelled context, a deadline) returns that error.
// It used to call the workspace one "jj cannot read", which gets it
// forgotten, deleted and provisioned again, losing a worker's edits. The
// workspace is left as it was.
func TestCheckStoppedIsAnError(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	jj := func(in string, args ...string) string {
		t.Helper()
		out, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: args, Dir: in, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("jj %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	jj(dir, "git", "init", "--no-colocate", root)
	jj(root, "describe", "-m", "base")
	jj(root, "new")
	base := jj(root, "log", "--no-graph", "-r", "@-", "-T", "change_id")
	repo, err := jjx.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	b := NewJJBackend(repo, filepath.Join(dir, "workspaces"), "task-")
	ws, err := b.Provision(t.Context(), Workspace{Name: "task-1", Base: []string{base}, Message: "Task: 1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Path, "work.txt"), []byte("a worker's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	known, err := b.known(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline", expired, context.DeadlineExceeded},
	} {
		problem, err := b.check(tc.ctx, ws, known, false)
		if !errors.Is(err, tc.want) || problem != "" {
			t.Errorf("%s: check gave problem %q, error %v; want no problem and an error that is %v", tc.name, problem, err, tc.want)
		}
	}
	// Untouched: jj still knows the workspace, its directory and the
	// worker's edit are there, and it checks clean.
	if names := jj(root, "workspace", "list", "-T", `name ++ "\n"`); !strings.Contains(names, "task-1") {
		t.Errorf("jj no longer lists workspace task-1:\n%s", names)
	}
	if data, err := os.ReadFile(filepath.Join(ws.Path, "work.txt")); err != nil || string(data) != "a worker's edit\n" {
		t.Errorf("the worker's edit: %q, %v", data, err)
	}
	if problem, err := b.Check(t.Context(), ws, false); problem != "" || err != nil {
		t.Errorf("check afterwards: %q, %v; want none", problem, err)
	}
}
