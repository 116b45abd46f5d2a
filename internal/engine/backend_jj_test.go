package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/testenv"
)

// brokenWorkingCopiesConfig is a jj configuration under which `jj
// workspace list` works but the `jj log` over the workspaces' recorded
// working copies (`present("NAME"@)|…`) fails: an alias takes the name
// of the present() function (the other aliases keep jj's own settings
// from calling it).
const brokenWorkingCopiesConfig = testenv.JJConfig + `[revsets]
short-prefixes = "@"
[revset-aliases]
"trunk()" = "root()"
"immutable_heads()" = "root()"
"present(x)" = "no_such_function(x)"
`

// TestCheckAllReportsWorkingCopiesError: when jj cannot read the
// recorded working copies, CheckAll returns that error. It used to drop
// it and check each workspace on its own, which calls a workspace whose
// working copy it cannot read one to remake (forget, remove and
// provision again, losing a worker's edits) rather than reporting the
// failure.
func TestCheckAllReportsWorkingCopiesError(t *testing.T) {
	f := newFixture(t, "jj")
	ctx := t.Context()
	b := f.b.(*engine.JJBackend)
	var wss []engine.Workspace
	for _, name := range []string{"task-1", "task-2"} {
		ws, err := b.Provision(ctx, engine.Workspace{Name: name, Base: []string{f.base}, Message: "Task: " + name})
		if err != nil {
			t.Fatalf("provision %s: %v", name, err)
		}
		wss = append(wss, ws)
	}
	if problems, err := b.CheckAll(ctx, wss, false); err != nil || len(problems) != 2 || problems[0] != "" || problems[1] != "" {
		t.Fatalf("check of two fresh workspaces: %q, %v; want no problem", problems, err)
	}

	cfg := filepath.Join(t.TempDir(), "jjconfig.toml")
	if err := os.WriteFile(cfg, []byte(brokenWorkingCopiesConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Repo.Env = append(b.Repo.Env, "JJ_CONFIG="+cfg)
	if _, err := b.Workspaces(ctx); err != nil {
		t.Fatalf("the configuration must leave `jj workspace list` working: %v", err)
	}
	if _, err := b.Repo.WorkingCopies(ctx, []string{"task-1", "task-2"}); err == nil {
		t.Fatal("this jj reads the working copies under the configuration meant to break that read: the test needs another way to make it fail")
	}
	problems, err := b.CheckAll(ctx, wss, false)
	if err == nil || !strings.Contains(err.Error(), "read the working copies of workspaces task-1, task-2") {
		t.Fatalf("check with the working copies unreadable: problems %q, error %v; want the error reading them", problems, err)
	}
}

// TestUndoIntegrateAllOwnOperation: UndoIntegrateAll takes back the
// batch squash by the operation IntegrateAll made, never by the text of
// an operation. A person's own operation after the squash, whose
// arguments hold the squash's own text (" squash " and the revset of its
// changes), is not the squash: it is not undone and the squash stays.
func TestUndoIntegrateAllOwnOperation(t *testing.T) {
	f := newFixture(t, "jj")
	ctx := t.Context()
	b := f.b.(*engine.JJBackend)
	var ps []engine.Produced
	for i, file := range []string{"one.txt", "two.txt"} {
		name := fmt.Sprintf("task-%d", i+1)
		ws, err := b.Provision(ctx, engine.Workspace{Name: name, Base: []string{f.base}, Message: "Task: " + name})
		if err != nil {
			t.Fatalf("provision %s: %v", name, err)
		}
		worker(t, ws, "echo "+name+" > "+file)
		p, err := b.Collect(ctx, ws)
		if err != nil || p.Empty() {
			t.Fatalf("collect %s: %+v, %v", name, p, err)
		}
		ps = append(ps, p)
	}
	inAt := func() bool {
		t.Helper()
		files := run(t, f.root, "jj", "file", "list", "-r", "@")
		one, two := strings.Contains(files, "one.txt"), strings.Contains(files, "two.txt")
		if one != two {
			t.Fatalf("@ holds one of the two tasks' files: %q", files)
		}
		return one
	}
	newestOp := func() string {
		return run(t, f.root, "jj", "--ignore-working-copy", "op", "log", "-n1", "--no-graph", "-T", "id")
	}

	// Taken back when it is still the newest operation.
	op, err := b.IntegrateAll(ctx, ps)
	if err != nil {
		t.Fatalf("integrate all: %v", err)
	}
	if op == "" || op != newestOp() {
		t.Fatalf("integrate all returned operation %q; want the squash's, the newest (%s)", op, newestOp())
	}
	if !inAt() {
		t.Fatal("after integrate all, @ lacks the tasks' files")
	}
	if undone, err := b.UndoIntegrateAll(ctx, op); err != nil || !undone {
		t.Fatalf("undo the newest squash: %v, %v; want it taken back", undone, err)
	}
	if inAt() {
		t.Fatal("after the squash was taken back, @ still holds the tasks' files")
	}

	// Not taken back after a person's operation that reads like it.
	op, err = b.IntegrateAll(ctx, ps)
	if err != nil || op == "" {
		t.Fatalf("integrate all again: %q, %v", op, err)
	}
	from := "change_id(\"" + ps[0].Changes[0] + "\")|change_id(\"" + ps[1].Changes[0] + "\")"
	msg := "redo squash " + from
	run(t, f.root, "jj", "describe", "-m", msg)
	ops, err := b.Repo.OpLog(ctx, 1)
	if err != nil || len(ops) != 1 || !strings.Contains(ops[0].Attributes.Args, " squash ") || !strings.Contains(ops[0].Attributes.Args, from) {
		t.Fatalf("the person's operation: %+v, %v; want its arguments to hold %q and the squash's revset %q", ops, err, " squash ", from)
	}
	undone, err := b.UndoIntegrateAll(ctx, op)
	if err != nil || undone {
		t.Fatalf("undo after a person's operation: %v, %v; want nothing undone", undone, err)
	}
	if got := run(t, f.root, "jj", "log", "--no-graph", "-r", "@", "-T", "description"); got != msg {
		t.Errorf("@'s description is %q; want the person's %q kept", got, msg)
	}
	if !inAt() {
		t.Error("the squash was undone with a person's operation after it")
	}
}
