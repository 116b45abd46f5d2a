package engine_test

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/jjx"
)

// TestProvisionConcurrentAdds: a wave's workspaces are added by
// concurrent `jj workspace add` processes (provisionAll), which relies on
// jj merging their concurrent operations. Every one of them survives the
// merge: jj lists each task's workspace, each with its own working-copy
// commit on the wave's base, none divergent. Several rounds, since a
// lost operation would show only now and then.
func TestProvisionConcurrentAdds(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	const n, rounds = 6, 3
	for round := range rounds {
		t.Run(fmt.Sprint("round ", round+1), func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			root := filepath.Join(dir, "repo")
			run(t, dir, "jj", "git", "init", "--no-colocate", root)
			write(t, root, "base.txt", tenLines)
			run(t, root, "jj", "describe", "-m", "work")
			repo, err := jjx.Open(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			req := engine.StartRequest{
				Binary: "jj-kaisen", Plan: "concurrent",
				Waves:   [][]int{{}},
				Briefs:  map[int]string{},
				Options: engine.Options{Worker: "true", SkipReview: true, WorkspacesDir: filepath.Join(dir, "workspaces")},
			}
			for i := 1; i <= n; i++ {
				req.Tasks = append(req.Tasks, engine.Task{Num: i, Title: fmt.Sprintf("file %d", i), Files: []string{fmt.Sprintf("file-%d.txt", i)}})
				req.Waves[0] = append(req.Waves[0], i)
				req.Briefs[i] = "brief\n"
			}
			res, err := engine.Reserve(filepath.Join(dir, "ledger"), false)
			if err != nil {
				t.Fatal(err)
			}
			r, err := res.Start(ctx, repo, req, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Provision(ctx, 1); err != nil {
				t.Fatal(err)
			}
			base := run(t, root, "jj", "log", "--no-graph", "-r", "@-", "-T", "change_id")
			listed := map[string]string{}
			for _, l := range strings.Split(run(t, root, "jj", "workspace", "list", "-T", `name ++ " " ++ target.change_id() ++ "\n"`), "\n") {
				name, change, _ := strings.Cut(l, " ")
				listed[name] = change
			}
			st := r.State()
			var changes []string
			for i := 1; i <= n; i++ {
				ts := st.Tasks[i]
				change, ok := listed[ts.Workspace]
				if ts.Workspace == "" || !ok {
					t.Errorf("task %d: workspace %q is not in jj's list %v", i, ts.Workspace, listed)
					continue
				}
				if slices.Contains(changes, change) {
					t.Errorf("task %d: workspace %s shares working-copy change %s with another task", i, ts.Workspace, change)
				}
				changes = append(changes, change)
				if p := run(t, root, "jj", "log", "--no-graph", "-r", jjx.Quote(ts.Workspace)+"@-", "-T", "change_id"); p != base {
					t.Errorf("task %d: workspace %s's working copy is on %s, not the base %s", i, ts.Workspace, p, base)
				}
			}
			if d := run(t, root, "jj", "log", "--no-graph", "-r", "divergent()", "-T", `change_id ++ "\n"`); d != "" {
				t.Errorf("divergent changes after the concurrent adds: %s", d)
			}
		})
	}
}
