package fakegh

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/xec"
)

// The fake's runner: on a dispatch it runs, in the background and within
// a deadline, the workflow's step with id "worker" the way an Actions
// runner would run a `run:` step. It clones the bare origin, checks out
// what the workflow's actions/checkout step names (the dispatched commit
// when it has none), and runs the step's script with
// `bash --noprofile --norc -eo pipefail` in the clone, the workflow's,
// the job's and the step's env: with ${{ inputs.X }}, ${{ secrets.X }},
// ${{ github.X }} and ${{ runner.temp }} rendered into environment
// variables (never into the script). Other steps are not run: the tools
// they install are on the test's PATH already. The script's exit
// completes the run: success or failure.

// DefaultRunTimeout bounds a run when the state sets no runner timeout.
const DefaultRunTimeout = 10 * time.Minute

// outputTail bounds what a run keeps of the worker step's output.
const outputTail = 8 << 10

// live is what the server knows of a run its runner is working on.
type live struct {
	cancel context.CancelFunc
	// hold is set for a run that waits to be cancelled (hang, queue):
	// closing the server leaves it as it is.
	hold bool
}

// runner is the server's part that runs dispatched runs.
type runner struct {
	wg   sync.WaitGroup
	live map[int64]*live
}

func (s *Server) runTimeout() time.Duration {
	if d, err := time.ParseDuration(s.st.RunnerTimeout); err == nil && d > 0 {
		return d
	}
	return DefaultRunTimeout
}

// startRun starts x's runner, as the repository's plan says (s.mu held).
func (s *Server) startRun(r *Repo, x *Run, wf workflow) {
	step := r.nextStep()
	delay, _ := time.ParseDuration(step.Delay)
	ctx, cancel := context.WithTimeout(context.Background(), s.runTimeout()+delay)
	l := &live{cancel: cancel, hold: step.Outcome == OutcomeHang || step.Outcome == OutcomeQueue}
	if s.runs.live == nil {
		s.runs.live = map[int64]*live{}
	}
	s.runs.live[x.ID] = l
	secrets := maps.Clone(r.Secrets)
	origin, repo := r.Origin, r.Owner+"/"+r.Name
	s.runs.wg.Add(1)
	go func() {
		defer s.runs.wg.Done()
		defer cancel()
		defer s.Do(func(*State) { delete(s.runs.live, x.ID) })
		if !sleep(ctx, delay) {
			return
		}
		switch step.Outcome {
		case OutcomeQueue:
			<-ctx.Done()
			return
		case OutcomeFail:
			s.finish(x, "failure", "fakegh: this run was told to fail")
			return
		}
		s.Do(func(*State) {
			if x.Status == "queued" {
				x.Status, x.StartedAt, x.UpdatedAt = "in_progress", now(), now()
			}
		})
		if step.Outcome == OutcomeHang {
			<-ctx.Done()
			return
		}
		out, err := runWorker(ctx, wf, x, origin, repo, secrets)
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			s.finish(x, "timed_out", out)
		case ctx.Err() != nil:
			// cancelled: cancelRun completed it; a closing server leaves it
		case err != nil:
			s.finish(x, "failure", out+err.Error()+"\n")
		default:
			s.finish(x, "success", out)
		}
	}()
}

// finish completes x with conclusion, unless it already completed.
func (s *Server) finish(x *Run, conclusion, output string) {
	s.Do(func(*State) {
		if x.Status == "completed" {
			return
		}
		x.Status, x.Conclusion, x.UpdatedAt = "completed", conclusion, now()
		if x.StartedAt == "" {
			x.StartedAt = x.UpdatedAt
		}
		if len(output) > outputTail {
			output = output[len(output)-outputTail:]
		}
		x.Output = output
	})
}

// stopRun cancels run id's runner, if it is live (s.mu held).
func (s *Server) stopRun(id int64) {
	if l := s.runs.live[id]; l != nil {
		l.cancel()
	}
}

// Close stops the runs that wait to be cancelled and waits for the
// others to complete (each within its deadline): what the state holds
// afterwards is what a later command sees.
func (s *Server) Close() {
	s.Do(func(*State) {
		for _, l := range s.runs.live {
			if l.hold {
				l.cancel()
			}
		}
	})
	s.runs.wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// tailWriter keeps the last outputTail bytes written.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*outputTail {
		w.buf = slices.Clone(w.buf[len(w.buf)-outputTail:])
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// checkoutRef is the ref the job's actions/checkout step checks out,
// rendered; "" when it names none.
func checkoutRef(job workflowJob, contexts map[string]map[string]string) string {
	for _, st := range job.Steps {
		if strings.HasPrefix(st.Uses, "actions/checkout@") {
			return expand(st.With["ref"], contexts)
		}
	}
	return ""
}

// runWorker runs x's worker step in a fresh clone of origin and returns
// what it printed.
func runWorker(ctx context.Context, wf workflow, x *Run, origin, repo string, secrets map[string]string) (string, error) {
	job, step, ok := wf.workerStep()
	if !ok {
		return "", fmt.Errorf("fakegh: %s%s has no step with id %q to run", workflowsDir, x.Workflow, WorkerStepID)
	}
	tmp, err := os.MkdirTemp("", "fakegh-runner-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	work, temp := filepath.Join(tmp, "work"), filepath.Join(tmp, "temp")
	if err := os.Mkdir(temp, 0o755); err != nil {
		return "", err
	}
	runID := strconv.FormatInt(x.ID, 10)
	contexts := map[string]map[string]string{
		"inputs":  x.Inputs,
		"secrets": secrets,
		"github":  {"run_id": runID, "repository": repo, "ref_name": x.Ref, "sha": x.HeadSHA, "workspace": work, "event_name": "workflow_dispatch"},
		"runner":  {"temp": temp},
	}
	ref := checkoutRef(job, contexts)
	if ref == "" {
		ref = x.HeadSHA
	}
	var out tailWriter
	git := func(args ...string) error {
		return xec.Run(ctx, xec.Cmd{Name: "git", Args: args, Stdout: &out, Stderr: &out})
	}
	// Over git's transport, as a runner clones over HTTPS, not by
	// copying the origin's files while other runs push to it.
	if err := git("clone", "-q", "--no-local", origin, work); err != nil {
		return out.String(), fmt.Errorf("fakegh: clone %s: %w", origin, err)
	}
	// As actions/checkout does: fetch the ref, check out what it names.
	if err := git("-C", work, "fetch", "-q", "origin", ref); err != nil {
		return out.String(), fmt.Errorf("fakegh: fetch %q: %w", ref, err)
	}
	if err := git("-C", work, "checkout", "-q", "--detach", "FETCH_HEAD"); err != nil {
		return out.String(), fmt.Errorf("fakegh: check out %q: %w", ref, err)
	}
	script := filepath.Join(temp, "worker.sh")
	if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
		return "", err
	}
	env := []string{
		"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=" + work, "RUNNER_TEMP=" + temp,
		"GITHUB_RUN_ID=" + runID, "GITHUB_REPOSITORY=" + repo, "GITHUB_REF_NAME=" + x.Ref, "GITHUB_SHA=" + x.HeadSHA,
		"GITHUB_EVENT_NAME=workflow_dispatch",
	}
	for _, m := range []map[string]string{wf.Env, job.Env, step.Env} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			env = append(env, k+"="+expand(m[k], contexts))
		}
	}
	err = xec.Run(ctx, xec.Cmd{Name: "bash", Args: []string{"--noprofile", "--norc", "-eo", "pipefail", script},
		Dir: work, Env: env, Stdout: &out, Stderr: &out, Setpgid: true})
	return out.String(), err
}
