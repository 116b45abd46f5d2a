package fakegh

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/gitx"
)

// Server serves a State over HTTP at the root path, as GitHub's REST API
// (https://api.github.com/) would.
type Server struct {
	mu   sync.Mutex
	st   *State
	mux  *http.ServeMux
	runs runner
}

// NewServer returns a server over st. Requests lock st; read it after
// the server is done, or through Do.
func NewServer(st *State) *Server {
	s := &Server{st: st, mux: http.NewServeMux()}
	s.routes()
	return s
}

// Do runs f with the state locked.
func (s *Server) Do(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.st)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		s.st.Log = append(s.st.Log, Request{Method: req.Method, Path: req.URL.RequestURI(), Status: sw.status})
	}()
	auth := req.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "token ") && !strings.HasPrefix(auth, "Bearer ") {
		writeError(sw, http.StatusUnauthorized, "Requires authentication")
		return
	}
	if s.fault(sw, req) {
		return
	}
	s.mux.ServeHTTP(sw, req)
}

// fault answers req with the first fault that matches it, and uses it up.
func (s *Server) fault(w http.ResponseWriter, req *http.Request) bool {
	for i, f := range s.st.Faults {
		if f.Method != req.Method || f.Path != req.URL.Path {
			continue
		}
		if f.Times--; f.Times <= 0 {
			s.st.Faults = append(s.st.Faults[:i], s.st.Faults[i+1:]...)
		} else {
			s.st.Faults[i] = f
		}
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
		writeError(w, f.Status, http.StatusText(f.Status)+" (fakegh fail)")
		return true
	}
	return false
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /repos/{owner}/{repo}", s.withRepo(s.getRepo))
	m.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.withRepo(s.getContents))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}", s.withRepo(s.getIssue))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/sub_issues", s.withRepo(s.subIssues))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/dependencies/blocked_by", s.withRepo(s.blockedBy))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/comments", s.withRepo(s.listComments))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/comments", s.withRepo(s.addComment))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.withRepo(s.listPulls))
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls", s.withRepo(s.createPull))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}", s.withRepo(s.getPull))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/pulls/{n}", s.withRepo(s.updatePull))
	m.HandleFunc("GET /repos/{owner}/{repo}/stacks", s.withRepo(s.stacksOn(s.listStacks)))
	m.HandleFunc("POST /repos/{owner}/{repo}/stacks", s.withRepo(s.stacksOn(s.createStack)))
	m.HandleFunc("GET /repos/{owner}/{repo}/stacks/{n}", s.withRepo(s.stacksOn(s.getStack)))
	m.HandleFunc("POST /repos/{owner}/{repo}/stacks/{n}/add", s.withRepo(s.stacksOn(s.addToStack)))
	m.HandleFunc("POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", s.withRepo(s.dispatch))
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs", s.withRepo(s.listRuns))
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/runs/{run}", s.withRepo(s.getRun))
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/runs/{run}/jobs", s.withRepo(s.listJobs))
	m.HandleFunc("POST /repos/{owner}/{repo}/actions/runs/{run}/cancel", s.withRepo(s.cancelRun))
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/jobs/{job}/logs", s.withRepo(s.jobLogs))
	m.HandleFunc("GET /_fakegh/logs/{owner}/{repo}/{job}", s.withRepo(s.jobLogText))
	m.HandleFunc("POST /graphql", s.graphql)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found")
	})
}

type repoHandler func(w http.ResponseWriter, req *http.Request, r *Repo)

func (s *Server) withRepo(h repoHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		r := s.st.Repo(req.PathValue("owner") + "/" + req.PathValue("repo"))
		if r == nil {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		h(w, req, r)
	}
}

func (s *Server) stacksOn(h repoHandler) repoHandler {
	return func(w http.ResponseWriter, req *http.Request, r *Repo) {
		if r.StacksDisabled {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		h(w, req, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string, errs ...map[string]string) {
	body := map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}

func validation(w http.ResponseWriter, resource, field, code, message string) {
	e := map[string]string{"resource": resource, "field": field, "code": code}
	if message != "" {
		e["message"] = message
	}
	writeError(w, http.StatusUnprocessableEntity, "Validation Failed", e)
}

func number(w http.ResponseWriter, req *http.Request) (int, bool) {
	n, err := strconv.Atoi(req.PathValue("n"))
	if err != nil || n <= 0 {
		writeError(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

func decode(w http.ResponseWriter, req *http.Request, v any) bool {
	data, err := io.ReadAll(req.Body)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// paginate writes the page of items the request asks for, with GitHub's
// Link header.
func paginate[T any](w http.ResponseWriter, req *http.Request, items []T) {
	perPage, page := 30, 1
	if v, err := strconv.Atoi(req.URL.Query().Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(req.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	start := min((page-1)*perPage, len(items))
	end := min(start+perPage, len(items))
	if end < len(items) {
		q := req.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(perPage))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, req.Host, req.URL.Path, q.Encode()))
	}
	res := items[start:end]
	if res == nil {
		res = []T{}
	}
	writeJSON(w, http.StatusOK, res)
}

// branchSHA reads branch's head from the repository's origin.
func branchSHA(r *Repo, branch string) (string, bool) {
	if r.Origin == "" || branch == "" {
		return "", false
	}
	g := &gitx.Repo{Dir: r.Origin}
	// The fake's renderers have no request context; the read has its own
	// deadline (gitx.ReadTimeout).
	// A read racing a push to the origin (a ref being written) can fail;
	// GitHub's own reads do not, so the fake reads again.
	for try := 0; ; try++ {
		sha, ok, err := g.Ref(context.Background(), "refs/heads/"+branch)
		if err == nil {
			return sha, ok
		}
		if try == 20 {
			return "", false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
