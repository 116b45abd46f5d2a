package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The GitHub Actions endpoints a remote worker needs: dispatch a
// workflow_dispatch workflow, find and follow the run it starts, list its
// jobs, cancel it. Reads that follow a run retry a rate-limited answer as
// GitHub asks (DefaultBackoff) and send conditional requests (If-None-Match)
// so that polling an unchanged run costs no rate limit.

// Run states (status) and the conclusion of a successful run.
const (
	RunQueued     = "queued"
	RunInProgress = "in_progress"
	RunCompleted  = "completed"
	RunSuccess    = "success"
)

// Limits of a workflow_dispatch event's inputs, as GitHub documents them
// (on.workflow_dispatch.inputs): at most 25 inputs, and at most 65,535
// characters of inputs in all. The size is counted here as the inputs'
// JSON encoding, in bytes: never less than GitHub's count.
const (
	MaxDispatchInputs     = 25
	MaxDispatchInputsSize = 65535
)

// ErrRunCompleted reports a cancel of a run that already completed
// (GitHub answers 409 Conflict).
var ErrRunCompleted = errors.New("the workflow run has already completed")

// WorkflowRun is what specstack reads of a workflow run.
type WorkflowRun struct {
	ID int64 `json:"id"`
	// DisplayTitle is the run's name: the workflow's run-name, rendered.
	DisplayTitle string `json:"display_title"`
	Name         string `json:"name"`
	Event        string `json:"event"`
	// Status is queued, in_progress or completed (or waiting, requested,
	// pending); Conclusion is set once completed: success, failure,
	// cancelled, timed_out, ...
	Status       string `json:"status"`
	Conclusion   string `json:"conclusion"`
	HeadBranch   string `json:"head_branch"`
	HeadSHA      string `json:"head_sha"`
	HTMLURL      string `json:"html_url"`
	RunAttempt   int    `json:"run_attempt"`
	CreatedAt    string `json:"created_at"`
	RunStartedAt string `json:"run_started_at"`
	UpdatedAt    string `json:"updated_at"`
}

// Completed reports whether the run has ended; Succeeded whether it ended
// in success.
func (r WorkflowRun) Completed() bool { return r.Status == RunCompleted }
func (r WorkflowRun) Succeeded() bool { return r.Completed() && r.Conclusion == RunSuccess }

// WorkflowJob is one job of a workflow run.
type WorkflowJob struct {
	ID          int64     `json:"id"`
	RunID       int64     `json:"run_id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	Conclusion  string    `json:"conclusion"`
	HTMLURL     string    `json:"html_url"`
	StartedAt   string    `json:"started_at"`
	CompletedAt string    `json:"completed_at"`
	Steps       []JobStep `json:"steps"`
	// RunnerName is the runner that ran the job, once one took it.
	RunnerName string `json:"runner_name"`
}

// JobStep is one step of a workflow job.
type JobStep struct {
	Number     int    `json:"number"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
}

// Dispatch is a workflow_dispatch event to create.
type Dispatch struct {
	// Workflow is the workflow's file name (specstack-worker.yml) or id.
	Workflow string
	// Ref is the branch or tag whose workflow file runs.
	Ref    string
	Inputs map[string]string
	// Title is the display title the workflow's run-name gives this run,
	// unique to the dispatch: how the run is found when GitHub does not
	// return its id (GitHub Enterprise Server without return_run_details).
	Title string
}

// DispatchedRun is the run a dispatch started.
type DispatchedRun struct {
	ID      int64  `json:"workflow_run_id"`
	URL     string `json:"run_url"`
	HTMLURL string `json:"html_url"`
}

// InputsError is a dispatch whose inputs exceed GitHub's limits; nothing
// was sent.
type InputsError struct {
	Workflow string
	Count    int // how many inputs
	Size     int // their JSON encoding, in bytes
	Largest  string
}

func (e *InputsError) Error() string {
	if e.Count > MaxDispatchInputs {
		return fmt.Sprintf("dispatch %s: %d inputs, GitHub takes at most %d", e.Workflow, e.Count, MaxDispatchInputs)
	}
	return fmt.Sprintf("dispatch %s: the inputs take %d bytes, GitHub takes at most %d (input %q is the largest): shorten it", e.Workflow, e.Size, MaxDispatchInputsSize, e.Largest)
}

// checkInputs refuses inputs GitHub would refuse for their number or size.
func checkInputs(d Dispatch) error {
	data, err := json.Marshal(d.Inputs)
	if err != nil {
		return fmt.Errorf("dispatch %s: encode inputs: %w", d.Workflow, err)
	}
	if len(d.Inputs) <= MaxDispatchInputs && len(data) <= MaxDispatchInputsSize {
		return nil
	}
	e := &InputsError{Workflow: d.Workflow, Count: len(d.Inputs), Size: len(data)}
	for k, v := range d.Inputs {
		if e.Largest == "" || len(v) > len(d.Inputs[e.Largest]) || len(v) == len(d.Inputs[e.Largest]) && k < e.Largest {
			e.Largest = k
		}
	}
	return e
}

func (c *Client) workflowPath(workflow, suffix string) string {
	return c.repoPath("/actions/workflows/%s%s", url.PathEscape(workflow), suffix)
}

// DispatchWorkflow creates a workflow_dispatch event and returns the run
// it started. It asks GitHub for the run (return_run_details); a server
// that does not know that parameter (older GitHub Enterprise Server) is
// asked again without it, and the run is then found by its title among
// the workflow's dispatched runs on the ref (FindRun).
func (c *Client) DispatchWorkflow(ctx context.Context, d Dispatch) (DispatchedRun, error) {
	if err := checkInputs(d); err != nil {
		return DispatchedRun{}, err
	}
	inputs := d.Inputs
	if inputs == nil {
		inputs = map[string]string{}
	}
	path := c.workflowPath(d.Workflow, "/dispatches")
	since := time.Now().Add(-time.Minute) // GitHub's clock may run behind ours
	var res DispatchedRun
	err := c.do(ctx, http.MethodPost, path, map[string]any{"ref": d.Ref, "inputs": inputs, "return_run_details": true}, &res)
	var ge *Error
	if errors.As(err, &ge) && (ge.Status == http.StatusUnprocessableEntity || ge.Status == http.StatusBadRequest) && strings.Contains(ge.Message, "return_run_details") {
		res, err = DispatchedRun{}, c.do(ctx, http.MethodPost, path, map[string]any{"ref": d.Ref, "inputs": inputs}, nil)
	}
	if err != nil || res.ID != 0 {
		return res, err
	}
	run, err := c.FindRun(ctx, d, since)
	if err != nil {
		return DispatchedRun{}, err
	}
	return DispatchedRun{ID: run.ID, URL: c.base + c.repoPath("/actions/runs/%d", run.ID), HTMLURL: run.HTMLURL}, nil
}

// RunNotFoundError is a dispatched run FindRun did not find (or found
// more than once: the title is not unique).
type RunNotFoundError struct {
	Workflow, Ref, Title string
	Found                int
}

func (e *RunNotFoundError) Error() string {
	if e.Found > 1 {
		return fmt.Sprintf("find the run of %s on %s: %d runs are titled %q; the title must be unique to a dispatch", e.Workflow, e.Ref, e.Found, e.Title)
	}
	return fmt.Sprintf("find the run of %s on %s titled %q: GitHub lists no such run; check the workflow's run-name renders the title", e.Workflow, e.Ref, e.Title)
}

// FindPoll is how long FindRun waits between listings, and FindTries how
// many it makes: GitHub lists a dispatched run a few seconds after the
// dispatch.
var (
	FindPoll  = 2 * time.Second
	FindTries = 30
)

// FindRun finds the run of dispatch d among the workflow's runs on d.Ref
// created since then, by its title.
func (c *Client) FindRun(ctx context.Context, d Dispatch, since time.Time) (WorkflowRun, error) {
	for try := 1; ; try++ {
		found, err := c.RunsTitled(ctx, d, since)
		if err != nil {
			return WorkflowRun{}, err
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1 || try >= FindTries:
			return WorkflowRun{}, &RunNotFoundError{Workflow: d.Workflow, Ref: d.Ref, Title: d.Title, Found: len(found)}
		}
		t := time.NewTimer(FindPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return WorkflowRun{}, fmt.Errorf("find the run of %s titled %q: %w", d.Workflow, d.Title, ctx.Err())
		case <-t.C:
		}
	}
}

// RunsTitled lists, once, the workflow's dispatched runs on d.Ref created
// since then whose title is d's.
func (c *Client) RunsTitled(ctx context.Context, d Dispatch, since time.Time) ([]WorkflowRun, error) {
	q := url.Values{}
	q.Set("event", "workflow_dispatch")
	q.Set("branch", d.Ref)
	q.Set("created", ">="+since.UTC().Format(time.RFC3339))
	path := c.workflowPath(d.Workflow, "/runs?"+q.Encode())
	var runs []WorkflowRun
	err := withBackoff(ctx, DefaultBackoff, func() (err error) {
		runs, err = getAllIn[WorkflowRun](ctx, c, path, "workflow_runs")
		return err
	})
	if err != nil {
		return nil, err
	}
	var found []WorkflowRun
	for _, r := range runs {
		if r.DisplayTitle == d.Title {
			found = append(found, r)
		}
	}
	return found, nil
}

// Run reads workflow run id.
func (c *Client) Run(ctx context.Context, id int64) (WorkflowRun, error) {
	var r WorkflowRun
	err := withBackoff(ctx, DefaultBackoff, func() error {
		return c.do(ctx, http.MethodGet, c.repoPath("/actions/runs/%d", id), nil, &r)
	})
	return r, err
}

// RunWatch follows one workflow run with conditional requests: GitHub
// answers 304 Not Modified while the run is unchanged, and a 304 does
// not count against the rate limit.
type RunWatch struct {
	c    *Client
	id   int64
	etag string
	run  WorkflowRun
}

// WatchRun returns a watch of run id; nothing is sent until Poll.
func (c *Client) WatchRun(id int64) *RunWatch { return &RunWatch{c: c, id: id} }

// Poll reads the run; changed is false when GitHub answered that it is as
// the last Poll read it (the run returned is that one).
func (w *RunWatch) Poll(ctx context.Context) (run WorkflowRun, changed bool, err error) {
	path := w.c.repoPath("/actions/runs/%d", w.id)
	var h http.Header
	var next WorkflowRun
	err = withBackoff(ctx, DefaultBackoff, func() (err error) {
		rctx := ctx
		if w.etag != "" {
			rctx = withHeader(ctx, "If-None-Match", w.etag)
		}
		h, err = w.c.send(rctx, http.MethodGet, path, nil, &next)
		return err
	})
	if IsStatus(err, http.StatusNotModified) && w.etag != "" {
		return w.run, false, nil
	}
	if err != nil {
		return WorkflowRun{}, false, err
	}
	w.etag, w.run = h.Get("ETag"), next
	return next, true, nil
}

// Jobs lists the jobs of workflow run id (its latest attempt).
func (c *Client) Jobs(ctx context.Context, id int64) ([]WorkflowJob, error) {
	var jobs []WorkflowJob
	err := withBackoff(ctx, DefaultBackoff, func() (err error) {
		jobs, err = getAllIn[WorkflowJob](ctx, c, c.repoPath("/actions/runs/%d/jobs", id), "jobs")
		return err
	})
	return jobs, err
}

// JobLog returns the plain-text log of workflow job id (GitHub answers
// with a redirect to it), or its last max bytes when it is longer.
func (c *Client) JobLog(ctx context.Context, id int64, max int) (string, error) {
	var end *tail
	err := withBackoff(ctx, DefaultBackoff, func() error {
		end = &tail{max: max} // each attempt reads the log afresh
		_, err := c.send(ctx, http.MethodGet, c.repoPath("/actions/jobs/%d/logs", id), nil, end)
		return err
	})
	if err != nil {
		return "", err
	}
	return string(end.buf), nil
}

// tail keeps the last max bytes written to it, so a log of any length is
// read in bounded memory.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return n, nil
}

// CancelRun asks GitHub to cancel workflow run id; ErrRunCompleted when
// the run has already ended.
func (c *Client) CancelRun(ctx context.Context, id int64) error {
	err := c.do(ctx, http.MethodPost, c.repoPath("/actions/runs/%d/cancel", id), nil, nil)
	if IsStatus(err, http.StatusConflict) {
		return fmt.Errorf("cancel run %d: %w", id, ErrRunCompleted)
	}
	return err
}
