package stack

import (
	"testing"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/engine"
)

// TestAbandonKeepsResult: abort gives a job up by deleting its base
// branch; a result the job pushed is a worker's work nothing took, and
// stays on origin, named. A job that pushed none leaves no branch.
func TestAbandonKeepsResult(t *testing.T) {
	e, origin, work := fakeActions(t, "echo done > out.txt\necho 'Status: DONE' > \"$SPECSTACK_REPORT\"\n", nil, 20*time.Millisecond)
	ctx := t.Context()
	g := &gitx.Repo{Dir: work}
	base, err := g.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.DispatchJob(ctx, work, engine.RoleImplementer, "1", "brief", "", engine.RemoteRun{Job: "r1/1-1", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Follow(ctx, work, run); err != nil {
		t.Fatal(err)
	}
	baseBranch, result := actionsworker.Branches(run.Job)
	kept, err := e.Abandon(ctx, work, run)
	if err != nil || kept != result {
		t.Fatalf("Abandon = %q, %v; want the result branch %s kept", kept, err, result)
	}
	heads, err := g.RemoteHeads(ctx, origin, baseBranch, result)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := heads[baseBranch]; ok {
		t.Errorf("%s is still on origin", baseBranch)
	}
	if _, ok := heads[result]; !ok {
		t.Errorf("the result %s was deleted from origin", result)
	}

	// Again, the job's result gone too: nothing kept, no error.
	if err := g.DeleteRemoteBranches(ctx, origin, result, actionsworker.AnswerBranch(run.Job)); err != nil {
		t.Fatal(err)
	}
	if kept, err := e.Abandon(ctx, work, run); err != nil || kept != "" {
		t.Errorf("Abandon with nothing left = %q, %v; want \"\", nil", kept, err)
	}
}
