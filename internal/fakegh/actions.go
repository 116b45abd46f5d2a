package fakegh

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Run is a workflow run the fake created for a dispatch.
type Run struct {
	ID       int64             `json:"id"`
	Workflow string            `json:"workflow"` // the workflow's file name
	Ref      string            `json:"ref"`      // the branch dispatched
	HeadSHA  string            `json:"head_sha"`
	Title    string            `json:"title"` // the rendered run-name
	Inputs   map[string]string `json:"inputs"`
	// Status is queued, in_progress or completed; Conclusion is set once
	// completed (success, failure, cancelled, timed_out).
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	CreatedAt  string `json:"created_at"`
	StartedAt  string `json:"run_started_at,omitempty"`
	UpdatedAt  string `json:"updated_at"`
	// Output is the tail of what the worker step printed; CancelAsked is
	// set when a cancel came while the run was live.
	Output      string `json:"output,omitempty"`
	CancelAsked bool   `json:"cancel_asked,omitempty"`
}

// Runner outcomes a test can ask for (RunnerPlan).
const (
	OutcomeRun   = ""      // run the worker step; its exit decides
	OutcomeFail  = "fail"  // complete with failure without running it
	OutcomeHang  = "hang"  // start and never finish (until cancelled)
	OutcomeQueue = "queue" // stay queued: no runner picks it up
)

// RunnerStep is how one dispatched run goes: after Delay (a Go
// duration), Outcome.
type RunnerStep struct {
	Outcome string `json:"outcome,omitempty"`
	Delay   string `json:"delay,omitempty"`
}

func (r *Repo) run(id int64) *Run {
	for _, x := range r.Runs {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// nextStep takes the runner's plan for the next dispatched run.
func (r *Repo) nextStep() RunnerStep {
	if len(r.RunnerPlan) == 0 {
		return RunnerStep{}
	}
	s := r.RunnerPlan[0]
	r.RunnerPlan = r.RunnerPlan[1:]
	return s
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

func (r *Repo) runURL(id int64) string {
	return fmt.Sprintf("https://api.github.com/repos/%s/%s/actions/runs/%d", r.Owner, r.Name, id)
}

func (r *Repo) runHTMLURL(id int64) string {
	return fmt.Sprintf("https://github.com/%s/%s/actions/runs/%d", r.Owner, r.Name, id)
}

// runJSON renders a run as GitHub's workflow-run object.
func (r *Repo) runJSON(x *Run) map[string]any {
	var conclusion any
	if x.Conclusion != "" {
		conclusion = x.Conclusion
	}
	return map[string]any{
		"id":             x.ID,
		"name":           strings.TrimSuffix(strings.TrimSuffix(x.Workflow, ".yml"), ".yaml"),
		"display_title":  x.Title,
		"path":           workflowsDir + x.Workflow,
		"event":          "workflow_dispatch",
		"status":         x.Status,
		"conclusion":     conclusion,
		"head_branch":    x.Ref,
		"head_sha":       x.HeadSHA,
		"html_url":       r.runHTMLURL(x.ID),
		"url":            r.runURL(x.ID),
		"run_attempt":    1,
		"created_at":     x.CreatedAt,
		"run_started_at": x.StartedAt,
		"updated_at":     x.UpdatedAt,
	}
}

// jobJSON renders the run's one job.
func (r *Repo) jobJSON(x *Run) map[string]any {
	var conclusion, completed any
	if x.Conclusion != "" {
		conclusion, completed = x.Conclusion, x.UpdatedAt
	}
	id := x.ID*10 + 1
	return map[string]any{
		"id":           id,
		"run_id":       x.ID,
		"name":         "worker",
		"status":       x.Status,
		"conclusion":   conclusion,
		"html_url":     fmt.Sprintf("%s/job/%d", r.runHTMLURL(x.ID), id),
		"started_at":   x.StartedAt,
		"completed_at": completed,
		"runner_name":  runnerName(x),
		"steps": []map[string]any{{
			"number": 1, "name": "Run the worker", "status": x.Status, "conclusion": conclusion,
		}},
	}
}

// runnerName is the runner of a run that started: the fake has one.
func runnerName(x *Run) any {
	if x.StartedAt == "" {
		return nil
	}
	return "fakegh-runner"
}

// writeConditional answers with v and its ETag, or 304 Not Modified when
// the request's If-None-Match holds that ETag, as GitHub does.
func writeConditional(w http.ResponseWriter, req *http.Request, v any) {
	data, _ := json.Marshal(v)
	sum := sha256.Sum256(data)
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	for _, tag := range strings.Split(req.Header.Get("If-None-Match"), ",") {
		if strings.TrimSpace(tag) == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) dispatch(w http.ResponseWriter, req *http.Request, r *Repo) {
	var in struct {
		Ref              string            `json:"ref"`
		Inputs           map[string]string `json:"inputs"`
		ReturnRunDetails *bool             `json:"return_run_details"`
	}
	if !decode(w, req, &in) {
		return
	}
	if in.ReturnRunDetails != nil && r.NoRunDetails {
		writeError(w, http.StatusUnprocessableEntity, `Invalid request.`+"\n\n"+`"return_run_details" is not a permitted key.`)
		return
	}
	ref := strings.TrimPrefix(in.Ref, "refs/heads/")
	sha, ok := branchSHA(r, ref)
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
		return
	}
	name := req.PathValue("workflow")
	wf, ok, err := readWorkflow(req.Context(), r, sha, name)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid workflow file: "+err.Error())
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if _, ok := wf.dispatchInputs(); !ok {
		writeError(w, http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	inputs, msg := wf.checkInputs(in.Inputs)
	if msg != "" {
		writeError(w, http.StatusUnprocessableEntity, msg)
		return
	}
	r.NextRun++
	x := &Run{ID: 7000 + r.NextRun, Workflow: name, Ref: ref, HeadSHA: sha, Inputs: inputs, Status: "queued", CreatedAt: now()}
	x.UpdatedAt = x.CreatedAt
	x.Title = expand(wf.RunName, map[string]map[string]string{"inputs": inputs})
	if wf.RunName == "" {
		x.Title = wf.Name
	}
	r.Runs = append(r.Runs, x)
	s.startRun(r, x, wf)
	if in.ReturnRunDetails != nil && *in.ReturnRunDetails {
		writeJSON(w, http.StatusOK, map[string]any{"workflow_run_id": x.ID, "run_url": r.runURL(x.ID), "html_url": r.runHTMLURL(x.ID)})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func runNumber(w http.ResponseWriter, req *http.Request, r *Repo) *Run {
	id, err := strconv.ParseInt(req.PathValue("run"), 10, 64)
	var x *Run
	if err == nil {
		x = r.run(id)
	}
	if x == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return x
}

func (s *Server) getRun(w http.ResponseWriter, req *http.Request, r *Repo) {
	if x := runNumber(w, req, r); x != nil {
		writeConditional(w, req, r.runJSON(x))
	}
}

func (s *Server) listRuns(w http.ResponseWriter, req *http.Request, r *Repo) {
	q := req.URL.Query()
	var since time.Time
	if c := q.Get("created"); c != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimPrefix(c, ">="))
		if err != nil || !strings.HasPrefix(c, ">=") {
			writeError(w, http.StatusUnprocessableEntity, "Invalid created filter (the fake takes >=RFC3339): "+c)
			return
		}
		since = t
	}
	name := req.PathValue("workflow")
	res := []map[string]any{}
	// GitHub lists newest first.
	for i := len(r.Runs) - 1; i >= 0; i-- {
		x := r.Runs[i]
		created, _ := time.Parse(time.RFC3339, x.CreatedAt)
		if x.Workflow != name || (q.Get("branch") != "" && x.Ref != q.Get("branch")) ||
			(q.Get("event") != "" && q.Get("event") != "workflow_dispatch") || created.Before(since) {
			continue
		}
		res = append(res, r.runJSON(x))
	}
	envelope(w, req, "workflow_runs", res)
}

func (s *Server) listJobs(w http.ResponseWriter, req *http.Request, r *Repo) {
	if x := runNumber(w, req, r); x != nil {
		envelope(w, req, "jobs", []map[string]any{r.jobJSON(x)})
	}
}

// envelope writes the page of items the request asks for inside
// {"total_count": N, field: [...]}, with GitHub's Link header.
func envelope(w http.ResponseWriter, req *http.Request, field string, items []map[string]any) {
	rec := &pageRecorder{header: w.Header()}
	paginate(rec, req, items)
	var page []map[string]any
	_ = json.Unmarshal(rec.body, &page)
	if page == nil {
		page = []map[string]any{}
	}
	writeConditional(w, req, map[string]any{"total_count": len(items), field: page})
}

// pageRecorder keeps what paginate writes (its headers go straight to
// the response).
type pageRecorder struct {
	header http.Header
	body   []byte
}

func (p *pageRecorder) Header() http.Header { return p.header }
func (p *pageRecorder) WriteHeader(int)     {}
func (p *pageRecorder) Write(b []byte) (int, error) {
	p.body = append(p.body, b...)
	return len(b), nil
}

// jobRun is the run of the job the request's path names (a run's one
// job has id RUN*10+1, as jobJSON gives it), or nil after a 404.
func jobRun(w http.ResponseWriter, req *http.Request, r *Repo) *Run {
	id, err := strconv.ParseInt(req.PathValue("job"), 10, 64)
	var x *Run
	if err == nil && id%10 == 1 {
		x = r.run(id / 10)
	}
	if x == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return x
}

// jobLogs answers as GitHub does: a redirect to the job's log as plain
// text (here on the fake itself).
func (s *Server) jobLogs(w http.ResponseWriter, req *http.Request, r *Repo) {
	if x := jobRun(w, req, r); x != nil {
		u := fmt.Sprintf("http://%s/_fakegh/logs/%s/%s/%s", req.Host, url.PathEscape(r.Owner), url.PathEscape(r.Name), req.PathValue("job"))
		http.Redirect(w, req, u, http.StatusFound)
	}
}

// jobLogText is a job's log: what its worker step printed (its tail).
func (s *Server) jobLogText(w http.ResponseWriter, req *http.Request, r *Repo) {
	if x := jobRun(w, req, r); x != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, x.Output)
	}
}

func (s *Server) cancelRun(w http.ResponseWriter, req *http.Request, r *Repo) {
	x := runNumber(w, req, r)
	if x == nil {
		return
	}
	if x.Status == "completed" {
		writeError(w, http.StatusConflict, "Cannot cancel a workflow run that is completed.")
		return
	}
	x.CancelAsked = true
	s.stopRun(x.ID)
	x.Status, x.Conclusion, x.UpdatedAt = "completed", "cancelled", now()
	writeJSON(w, http.StatusAccepted, map[string]any{})
}
