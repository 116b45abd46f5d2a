package stack

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/actionsworker"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/stack/ghapi"
)

// countingTransport counts the GitHub requests by what they are for.
type countingTransport struct {
	dispatch, follow, other atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch p := req.URL.Path; {
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/dispatches"):
		c.dispatch.Add(1)
	case req.Method == http.MethodGet && strings.Contains(p, "/actions/runs/"):
		c.follow.Add(1)
	default:
		c.other.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// BenchmarkActions64 runs 64 jobs, 8 at a time, through the executor's
// GitHub side against the fake GitHub and its runner (a worker that
// writes one file): each job's base pushed, the workflow dispatched, the
// run followed (polling every 50 ms), its result fetched, its branches
// deleted. It prints the GitHub requests per job — dispatch, follow
// (conditional: an unchanged run is a 304) and other — and the wall time
// per job, the runner's included, and this process's CPU per job (the
// executor and the fake's handlers). Each job's result is checked to be
// one commit on its base.
func BenchmarkActions64(b *testing.B) {
	count := &countingTransport{}
	e, _, work := fakeActions(b, "echo \"job $SPECSTACK_TASK\" > \"job-$SPECSTACK_TASK.txt\"\necho 'Status: DONE' > \"$SPECSTACK_REPORT\"\n", count, 50*time.Millisecond)
	base, err := (&gitx.Repo{Dir: work}).Resolve(context.Background(), "HEAD")
	if err != nil {
		b.Fatal(err)
	}
	const jobs = 64
	var wall time.Duration
	cpu0 := selfCPU()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		var mu sync.Mutex
		var errs []error
		ids := make([]int, jobs)
		for j := range ids {
			ids[j] = j
		}
		engine.Parallel(context.Background(), ids, 8, func(ctx context.Context, j int) {
			err := benchJob(ctx, e, work, fmt.Sprintf("bench%d/j%d", i, j), base, j)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
		wall += time.Since(start)
		if len(errs) > 0 {
			b.Fatalf("%d of %d jobs failed; the first: %v", len(errs), jobs, errs[0])
		}
	}
	n := float64(b.N * jobs)
	b.ReportMetric(float64(count.dispatch.Load())/n, "dispatch-requests/job")
	b.ReportMetric(float64(count.follow.Load())/n, "follow-requests/job")
	b.ReportMetric(float64(count.other.Load())/n, "other-requests/job")
	b.ReportMetric(float64(wall.Milliseconds())/n, "wall-ms/job")
	b.ReportMetric(float64((selfCPU()-cpu0).Milliseconds())/n, "self-cpu-ms/job")
}

// selfCPU is this process's CPU time so far: the executor's Go code and
// the fake GitHub's handlers, which run in it (git, the runner's shell
// and its clone are other processes).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchJob runs one job to its end and checks its result.
func benchJob(ctx context.Context, e *ActionsExecutor, gitDir, job, base string, n int) error {
	run, err := e.DispatchJob(ctx, gitDir, engine.RoleImplementer, fmt.Sprint(n), "brief", "", engine.RemoteRun{Job: job, Base: base})
	if err != nil {
		return err
	}
	res, err := e.Follow(ctx, gitDir, run)
	if err != nil {
		return err
	}
	if res.Conclusion != "success" || res.Commit == "" {
		return fmt.Errorf("job %s: run %d concluded %s, result %q", job, run.ID, res.Conclusion, res.Commit)
	}
	c, err := (&gitx.Repo{Dir: gitDir}).Commit(ctx, res.Commit)
	if err != nil {
		return err
	}
	if len(c.Parents) != 1 || c.Parents[0] != base {
		return fmt.Errorf("job %s: result %s is not one commit on %s", job, res.Commit, base)
	}
	return e.Clean(ctx, gitDir, run)
}

// fakeActions is an executor on the fake GitHub (in this process, its
// runner running the worker workflow for worker, a script written to
// ci/worker.sh), requests carried by transport (nil: the default), with
// the bare origin and a clone of it (work) holding the workflow.
func fakeActions(tb testing.TB, worker string, transport http.RoundTripper, poll time.Duration) (e *ActionsExecutor, origin, work string) {
	tb.Helper()
	testenv.Isolate(tb)
	wf, err := actionsworker.Render(actionsworker.Options{Worker: "sh ci/worker.sh"})
	if err != nil {
		tb.Fatal(err)
	}
	origin, work = testenv.Origin(tb, tb.TempDir(), map[string]string{actionsworker.Path: string(wf), "ci/worker.sh": worker})
	st := fakegh.NewState()
	st.AddRepo("acme", "app", origin, "main")
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() { hs.Close(); srv.Close() })
	client, err := ghapi.New(ghapi.Target{Host: "github.com", Owner: "acme", Name: "app", Token: "t", APIURL: hs.URL}, transport)
	if err != nil {
		tb.Fatal(err)
	}
	return &ActionsExecutor{Client: client, Workflow: actionsworker.File, Ref: "main", Remote: "origin", Worker: "sh ci/worker.sh", Poll: poll}, origin, work
}
