package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
	"github.com/specstack/specstack/stack/ghapi"
)

// testWorkflow is a dispatch workflow whose worker step commits what its
// environment holds and pushes it to result-JOB.
const testWorkflow = `name: worker
run-name: job ${{ inputs.job }}
on:
  workflow_dispatch:
    inputs:
      job: {required: true}
      base: {required: true}
      note: {required: false, default: "none"}
env:
  GREETING: ${{ secrets.GREETING }}
jobs:
  work:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ inputs.base }}
          fetch-depth: 0
      - id: worker
        env:
          JOB: ${{ inputs.job }}
          NOTE: ${{ inputs.note }}
        run: |
          [ "$JOB" != fail ] || { echo "told to fail" >&2; exit 3; }
          printf '%s %s %s\n' "$GREETING" "$JOB" "$NOTE" > out.txt
          git add out.txt
          git -c user.name=w -c user.email=w@example.com commit -qm "job $JOB"
          git push -q origin "HEAD:refs/heads/result-$JOB"
`

// actionsFake serves acme/app whose origin's main holds testWorkflow and
// whose branch "base" holds base.txt; the secret GREETING is "hello".
func actionsFake(t *testing.T) (*ghapi.Client, *fakegh.Server, string) {
	t.Helper()
	testenv.Isolate(t)
	origin, work := testenv.Origin(t, t.TempDir(), map[string]string{".github/workflows/w.yml": testWorkflow})
	testenv.Git(t, work, "checkout", "-q", "-b", "base")
	if err := os.WriteFile(filepath.Join(work, "base.txt"), []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, work, "add", ".")
	testenv.Git(t, work, "commit", "-q", "-m", "base")
	testenv.Git(t, work, "push", "-q", "origin", "base")

	st := fakegh.NewState()
	st.AddRepo("acme", "app", origin, "main").Secrets = map[string]string{"GREETING": "hello"}
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	c, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t0ken", APIURL: hs.URL + "/"},
		guard{t: t, host: strings.TrimPrefix(hs.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, origin
}

// follow polls run id until it completes (within a minute).
func follow(t *testing.T, c *ghapi.Client, id int64) ghapi.WorkflowRun {
	t.Helper()
	w := c.WatchRun(id)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		run, _, err := w.Poll(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if run.Completed() {
			return run
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("run %d did not complete within a minute", id)
	return ghapi.WorkflowRun{}
}

func show(t *testing.T, origin, rev string) string {
	t.Helper()
	out, err := xec.Output(context.Background(), xec.Cmd{Name: "git", Args: []string{"-C", origin, "show", rev}})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func requests(srv *fakegh.Server) []fakegh.Request {
	var log []fakegh.Request
	srv.Do(func(st *fakegh.State) { log = append(log, st.Log...) })
	return log
}

func TestDispatchRunsTheWorkerStep(t *testing.T) {
	c, srv, origin := actionsFake(t)
	ctx := t.Context()
	// Text that a shell would run if it were spliced into the script.
	note := `$(touch pwned) "; exit 1 #`
	d, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Title: "job 1",
		Inputs: map[string]string{"job": "1", "base": "base", "note": note}})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID == 0 || !strings.HasSuffix(d.HTMLURL, "/actions/runs/"+itoa(d.ID)) {
		t.Fatalf("dispatched run = %+v", d)
	}
	run := follow(t, c, d.ID)
	if !run.Succeeded() || run.DisplayTitle != "job 1" || run.HeadBranch != "main" || run.Event != "workflow_dispatch" || run.RunStartedAt == "" {
		t.Fatalf("run = %+v", run)
	}
	if got := show(t, origin, "result-1:out.txt"); got != "hello 1 "+note+"\n" {
		t.Errorf("the worker's commit holds %q", got)
	}
	if got := show(t, origin, "result-1:base.txt"); got != "base\n" {
		t.Errorf("the worker did not start from the base: base.txt = %q", got)
	}

	// Polling a completed run again is answered 304, and the run is the
	// same.
	w := c.WatchRun(d.ID)
	first, changed, err := w.Poll(ctx)
	if err != nil || !changed {
		t.Fatalf("first poll: changed=%v, %v", changed, err)
	}
	again, changed, err := w.Poll(ctx)
	if err != nil || changed || again != first {
		t.Fatalf("second poll: changed=%v, %+v, %v", changed, again, err)
	}
	log := requests(srv)
	if last := log[len(log)-1]; last.Status != http.StatusNotModified || last.Method != http.MethodGet {
		t.Errorf("the second poll was answered %+v, want 304", last)
	}

	jobs, err := c.Jobs(ctx, d.ID)
	if err != nil || len(jobs) != 1 || jobs[0].RunID != d.ID || jobs[0].Conclusion != ghapi.RunSuccess || len(jobs[0].Steps) == 0 {
		t.Errorf("Jobs = %+v, %v", jobs, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestDispatchFailures(t *testing.T) {
	c, srv, _ := actionsFake(t)
	ctx := t.Context()
	// A worker step that exits non-zero fails the run.
	d, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: map[string]string{"job": "fail", "base": "base"}})
	if err != nil {
		t.Fatal(err)
	}
	if run := follow(t, c, d.ID); run.Conclusion != "failure" {
		t.Errorf("a worker step exiting 3: conclusion %q", run.Conclusion)
	}
	// Its job's log, through GitHub's redirect to the text, says why; a
	// longer log is cut to its end.
	jobs, err := c.Jobs(ctx, d.ID)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("Jobs = %+v, %v", jobs, err)
	}
	log, err := c.JobLog(ctx, jobs[0].ID, 1<<10)
	if err != nil || !strings.HasPrefix(log, "told to fail\n") || !strings.Contains(log, "exit status 3") {
		t.Errorf("JobLog = %q, %v", log, err)
	}
	if end, err := c.JobLog(ctx, jobs[0].ID, 10); err != nil || end != log[len(log)-10:] {
		t.Errorf("JobLog cut to 10 bytes = %q, %v; want the end of %q", end, err, log)
	}
	if _, err := c.JobLog(ctx, jobs[0].ID+1, 1<<10); !ghapi.IsStatus(err, 404) {
		t.Errorf("JobLog of a job that does not exist: %v, want HTTP 404", err)
	}
	redirected := false
	for _, r := range requests(srv) {
		redirected = redirected || r.Status == http.StatusFound && strings.HasSuffix(r.Path, "/actions/jobs/"+itoa(jobs[0].ID)+"/logs")
	}
	if !redirected {
		t.Error("the job log was not served through a redirect, as GitHub serves it")
	}

	tests := []struct {
		name   string
		d      ghapi.Dispatch
		status int
		msg    string
	}{
		{"unknown input", ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: map[string]string{"job": "1", "base": "b", "x": "1"}}, 422, `Unexpected inputs provided: ["x"]`},
		{"missing input", ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: map[string]string{"job": "1"}}, 422, `Required input 'base' not provided`},
		{"no such ref", ghapi.Dispatch{Workflow: "w.yml", Ref: "nope", Inputs: map[string]string{"job": "1", "base": "b"}}, 422, "No ref found for: nope"},
		{"no such workflow", ghapi.Dispatch{Workflow: "other.yml", Ref: "main"}, 404, "Not Found"},
	}
	for _, tt := range tests {
		_, err := c.DispatchWorkflow(ctx, tt.d)
		if !ghapi.IsStatus(err, tt.status) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want HTTP %d %q", tt.name, err, tt.status, tt.msg)
		}
	}

	// Inputs over GitHub's size limit are refused before anything is sent.
	before := len(requests(srv))
	_, err = c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main",
		Inputs: map[string]string{"job": "1", "base": "base", "note": strings.Repeat("x", ghapi.MaxDispatchInputsSize)}})
	var ie *ghapi.InputsError
	if !errors.As(err, &ie) || ie.Largest != "note" || !strings.Contains(err.Error(), "GitHub takes at most 65535") {
		t.Errorf("oversized inputs: %v", err)
	}
	if n := len(requests(srv)) - before; n != 0 {
		t.Errorf("oversized inputs sent %d requests", n)
	}
}

func TestDispatchFindsTheRunWithoutRunDetails(t *testing.T) {
	c, srv, origin := actionsFake(t)
	srv.Do(func(st *fakegh.State) { st.Repo("acme/app").NoRunDetails = true })
	d, err := c.DispatchWorkflow(t.Context(), ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Title: "job 2",
		Inputs: map[string]string{"job": "2", "base": "base"}})
	if err != nil {
		t.Fatal(err)
	}
	if run := follow(t, c, d.ID); !run.Succeeded() || run.DisplayTitle != "job 2" {
		t.Fatalf("run = %+v", run)
	}
	show(t, origin, "result-2:out.txt")
	var got []string
	for _, r := range requests(srv)[:3] {
		got = append(got, r.Method+" "+strings.SplitN(r.Path, "?", 2)[0]+" "+itoa(int64(r.Status)))
	}
	want := []string{
		"POST /repos/acme/app/actions/workflows/w.yml/dispatches 422",
		"POST /repos/acme/app/actions/workflows/w.yml/dispatches 204",
		"GET /repos/acme/app/actions/workflows/w.yml/runs 200",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A title two runs share names no run.
	_, err = c.FindRun(t.Context(), ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Title: "job 2"}, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DispatchWorkflow(t.Context(), ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Title: "job 2",
		Inputs: map[string]string{"job": "2", "base": "base"}}); err == nil || !strings.Contains(err.Error(), `2 runs are titled "job 2"`) {
		t.Errorf("an ambiguous title: %v", err)
	}
}

func TestCancelAndRunnerPlan(t *testing.T) {
	c, srv, _ := actionsFake(t)
	ctx := t.Context()
	srv.Do(func(st *fakegh.State) {
		st.Repo("acme/app").RunnerPlan = []fakegh.RunnerStep{{Outcome: fakegh.OutcomeHang}, {Outcome: fakegh.OutcomeFail, Delay: "100ms"}}
	})
	in := map[string]string{"job": "1", "base": "base"}
	hung, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	if run := follow(t, c, failed.ID); run.Conclusion != "failure" {
		t.Errorf("a run told to fail: %+v", run)
	}
	if run, err := c.Run(ctx, hung.ID); err != nil || run.Status != ghapi.RunInProgress {
		t.Fatalf("a hung run: %+v, %v", run, err)
	}
	if err := c.CancelRun(ctx, hung.ID); err != nil {
		t.Fatal(err)
	}
	if run := follow(t, c, hung.ID); run.Conclusion != "cancelled" {
		t.Errorf("a cancelled run: %+v", run)
	}
	if err := c.CancelRun(ctx, hung.ID); !errors.Is(err, ghapi.ErrRunCompleted) {
		t.Errorf("cancelling a completed run: %v", err)
	}
}

func TestFollowBacksOffOnRateLimit(t *testing.T) {
	c, srv, _ := actionsFake(t)
	ctx := t.Context()
	d, err := c.DispatchWorkflow(ctx, ghapi.Dispatch{Workflow: "w.yml", Ref: "main", Inputs: map[string]string{"job": "1", "base": "base"}})
	if err != nil {
		t.Fatal(err)
	}
	path := "/repos/acme/app/actions/runs/" + itoa(d.ID)
	srv.Do(func(st *fakegh.State) {
		st.Faults = append(st.Faults, fakegh.Fault{Method: "GET", Path: path, Status: http.StatusTooManyRequests, Times: 1, RetryAfter: 1})
	})
	start := time.Now()
	if _, err := c.Run(ctx, d.ID); err != nil {
		t.Fatalf("a rate-limited read is retried: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %s, GitHub asked for 1s", waited)
	}

	// A limit that outlasts the tries ends the call, saying so.
	srv.Do(func(st *fakegh.State) {
		st.Faults = append(st.Faults, fakegh.Fault{Method: "GET", Path: path, Status: http.StatusForbidden, Times: 2, RetryAfter: 3600})
	})
	_, err = c.Run(ctx, d.ID)
	var ge *ghapi.Error
	if !errors.As(err, &ge) || !ge.RateLimited || ge.RetryAfter != time.Hour || !strings.Contains(err.Error(), "rate limited by GitHub") {
		t.Errorf("a limit longer than the backoff allows: %v", err)
	}
}
