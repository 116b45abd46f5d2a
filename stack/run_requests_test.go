package stack

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// runRequests runs a spec of n tickets, each blocked by the one before,
// against the fake GitHub with a bare local origin and a scripted worker,
// and returns the requests each layer's publish made (between one pull
// request's creation and the next) and those of the whole run after it
// was settled.
func runRequests(tb testing.TB, n int) (perLayer []int, total int) {
	tb.Helper()
	vars, err := testenv.Vars(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range vars {
		tb.Setenv(k, v)
	}
	ctx := context.Background()
	root := tb.TempDir()
	origin, work := filepath.Join(root, "origin.git"), filepath.Join(root, "work")
	git := func(dir string, args ...string) {
		if out, err := xec.Output(ctx, xec.Cmd{Name: "git", Args: args, Dir: dir}); err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(root, "init", "-q", "--bare", origin)
	git(root, "clone", "-q", origin, work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("app\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	git(work, "add", "README.md")
	git(work, "commit", "-q", "-m", "base")
	git(work, "push", "-q", "origin", "main")

	st := fakegh.NewState()
	r := st.AddRepo("acme", "app", origin, "main")
	spec := r.AddIssue("Spec", "", nil, false)
	body := "## Validation\n\n### Run per change\n- `test -s README.md`\n"
	prev := 0
	for i := 0; i < n; i++ {
		t := r.AddIssue(fmt.Sprintf("Ticket %d", i+1), body, nil, false)
		if err := r.AddSubIssue(spec.Number, t.Number); err != nil {
			tb.Fatal(err)
		}
		if prev != 0 {
			if err := r.AddBlockedBy(t.Number, prev); err != nil {
				tb.Fatal(err)
			}
		}
		prev = t.Number
	}
	srv := fakegh.NewServer(st)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tb.Setenv("GH_SPECSTACK_API_URL", hs.URL+"/")
	tb.Setenv("GH_TOKEN", "t0ken")
	tb.Setenv("GH_REPO", "acme/app")

	env, err := Connect(ctx, work, ConnectOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	h, _, err := SettleRun(ctx, env, RunRequest{Plan: PlanRequest{Spec: spec.Number}, Worker: `echo "$SPECSTACK_TASK" > "t$SPECSTACK_TASK.txt"; echo "Status: DONE" > "$SPECSTACK_REPORT"`})
	if err != nil {
		tb.Fatal(err)
	}
	ledgerDir := filepath.Join(root, "ledger")
	doc, err := RecordRun(ledgerDir, h)
	if err != nil {
		tb.Fatal(err)
	}
	var settled int
	srv.Do(func(s *fakegh.State) { settled = len(s.Log) })
	status, err := Drive(ctx, env, doc, DriveOptions{LedgerDir: ledgerDir, WorkspacesDir: filepath.Join(root, "wt")})
	if err != nil {
		tb.Fatal(err)
	}
	if status.State != "complete" {
		tb.Fatalf("run ended %s: %v", status.State, status.Remains)
	}
	srv.Do(func(s *fakegh.State) {
		log := s.Log[settled:]
		total = len(log)
		count := -1
		for _, q := range log {
			if q.Method == "POST" && strings.HasSuffix(q.Path, "/pulls") {
				if count >= 0 {
					perLayer = append(perLayer, count)
				}
				count = 0
			}
			if count >= 0 {
				count++
			}
			if q.Method == "GET" && strings.Contains(q.Path, "/stacks") {
				break // finalize's reconciliation
			}
		}
	})
	return perLayer, total
}

// TestRunRequestsPerLayer: publishing a layer costs the same few
// requests at the bottom of a stack as at its top (open the pull
// request, one stack add), never a re-listing of the stack. The
// benchmark below measures a 20-ticket spec.
func TestRunRequestsPerLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20-ticket stack with real git")
	}
	const n = 8
	perLayer, total := runRequests(t, n)
	if len(perLayer) != n-1 {
		t.Fatalf("measured %d layers between pull request creations, want %d: %v", len(perLayer), n-1, perLayer)
	}
	for i, c := range perLayer {
		if c > 2 {
			t.Errorf("layer %d made %d requests (want at most 2: open the pull request, register it): %v", i+1, c, perLayer)
		}
	}
	t.Logf("%.2f requests/layer (whole run after settling: %d requests for %d layers, finalize included)", float64(total)/n, total, n)
}

// BenchmarkRunRequestsPerLayer reports the GitHub requests of a 20-ticket
// run per published layer, finalize included (go test -bench
// RunRequests -benchtime 1x ./stack).
func BenchmarkRunRequestsPerLayer(b *testing.B) {
	for b.Loop() {
		_, total := runRequests(b, 20)
		b.ReportMetric(float64(total)/20, "requests/layer")
	}
}
