package fakegh_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// actionsRepo serves acme/app whose main holds the workflow files given
// (name → content).
func actionsRepo(t *testing.T, files map[string]string) (*ghapi.Client, *fakegh.Server) {
	t.Helper()
	testenv.Isolate(t)
	wf := map[string]string{}
	for name, content := range files {
		wf[".github/workflows/"+name] = content
	}
	origin, _ := testenv.Origin(t, t.TempDir(), wf)
	st := fakegh.NewState()
	st.AddRepo("acme", "app", origin, "main")
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t", APIURL: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

const sleeper = `on: workflow_dispatch
jobs:
  w:
    runs-on: ubuntu-latest
    steps:
      - id: worker
        run: sleep 30
`

func TestDispatchNeedsTheTrigger(t *testing.T) {
	c, _ := actionsRepo(t, map[string]string{"push.yml": "on: push\njobs: {}\n", "broken.yml": "on: [\n"})
	_, err := c.DispatchWorkflow(t.Context(), ghapi.Dispatch{Workflow: "push.yml", Ref: "main"})
	if !ghapi.IsStatus(err, 422) || err.Error() != "POST /repos/acme/app/actions/workflows/push.yml/dispatches: HTTP 422: Workflow does not have 'workflow_dispatch' trigger" {
		t.Errorf("a workflow without workflow_dispatch: %v", err)
	}
	if _, err := c.DispatchWorkflow(t.Context(), ghapi.Dispatch{Workflow: "broken.yml", Ref: "main"}); !ghapi.IsStatus(err, 422) {
		t.Errorf("a workflow file that does not parse: %v", err)
	}
}

func TestRunnerDeadlineAndClose(t *testing.T) {
	c, srv := actionsRepo(t, map[string]string{"s.yml": sleeper})
	ctx := t.Context()
	srv.Do(func(st *fakegh.State) {
		st.RunnerTimeout = "300ms"
		st.Repo("acme/app").RunnerPlan = []fakegh.RunnerStep{{}, {Outcome: fakegh.OutcomeHang}, {Outcome: fakegh.OutcomeQueue}}
	})
	var ids []int64
	for range 3 {
		d, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "s.yml", Ref: "main"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	start := time.Now()
	for {
		run, err := c.Run(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if run.Completed() {
			if run.Conclusion != "timed_out" {
				t.Errorf("a worker step past the deadline: %+v", run)
			}
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the runner's deadline did not end the run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Closing the server leaves a hung run in progress and a queued one
	// queued, as a real runner would be after the command that started
	// them ended.
	srv.Close()
	srv.Do(func(st *fakegh.State) {
		runs := st.Repo("acme/app").Runs
		if runs[1].Status != "in_progress" || runs[2].Status != "queued" {
			t.Errorf("after Close: %s, %s", runs[1].Status, runs[2].Status)
		}
	})
}
