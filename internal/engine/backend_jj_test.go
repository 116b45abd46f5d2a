package engine_test

import (
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
	problems, err := b.CheckAll(ctx, wss, false)
	if err == nil || !strings.Contains(err.Error(), "read the working copies of workspaces task-1, task-2") {
		t.Fatalf("check with the working copies unreadable: problems %q, error %v; want the error reading them", problems, err)
	}
}
