package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
)

// TestCollectOffBase: a worker that made its work and then moved its
// working copy away (jj new root(); git checkout of another commit, its
// branch left holding the work) is not collected as having made
// nothing: Collect fails with an OffBaseError naming where the work is,
// on real jj and real git. A worker that stays on its base is collected.
func TestCollectOffBase(t *testing.T) {
	moves := map[string]string{
		"jj":  "echo work > c.txt && jj new 'root()' >/dev/null 2>&1",
		"git": "echo work > c.txt && git add c.txt && git commit -q -m work && git checkout -q --detach HEAD~1",
	}
	for _, vcs := range []string{"jj", "git"} {
		t.Run(vcs, func(t *testing.T) {
			f := newFixture(t, vcs)
			ctx := t.Context()
			for _, tc := range []struct{ name, script string }{{"stays", "echo work > c.txt"}, {"moves", moves[vcs]}} {
				ws, err := f.w.Provision(ctx, engine.Workspace{Name: "w-" + tc.name, Base: []string{f.base}, Message: "Task: " + tc.name})
				if err != nil {
					t.Fatal(err)
				}
				worker(t, ws, tc.script)
				p, err := f.w.Collect(ctx, ws)
				var off *engine.OffBaseError
				switch {
				case tc.name == "stays" && (err != nil || len(p.Files) != 1):
					t.Errorf("a worker on its base: collected %+v, %v; want c.txt", p, err)
				case tc.name == "moves" && !errors.As(err, &off):
					t.Errorf("a worker that moved off its base: collected %+v, %v; want an OffBaseError", p, err)
				case tc.name == "moves" && !strings.Contains(err.Error(), "moved its working copy off its base"):
					t.Errorf("error %q does not say what the worker did", err)
				}
			}
		})
	}
}
