package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// Server answers both model APIs from one Scenario. It keeps nothing in
// memory between requests: the turn comes from the request's history and
// the failure counts from the state file, so any number of servers and
// agents can share a scenario.
type Server struct {
	sc        *Scenario
	logPath   string
	statePath string
	mu        sync.Mutex // orders this process's log lines
}

// NewServer returns a server answering from sc, appending every request to
// logPath and counting failures in statePath (either may be "": no log,
// counts in memory only for this server).
func NewServer(sc *Scenario, logPath, statePath string) *Server {
	return &Server{sc: sc, logPath: logPath, statePath: statePath}
}

// Entry is one line of the request log.
type Entry struct {
	Time   string `json:"time"`
	Method string `json:"method"`
	Path   string `json:"path"` // with the query
	API    string `json:"api,omitempty"`
	// Rule is the index of the rule the request picked, -1 for none; Turn
	// the assistant turns already in its history; both -1 for requests
	// that are not model calls.
	Rule    int               `json:"rule"`
	Turn    int               `json:"turn"`
	Answer  string            `json:"answer,omitempty"` // what was answered, in short
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

// call is a model request reduced to what picks the answer.
type call struct {
	firstText  string // the user's text before the first assistant turn
	turns      int    // assistant turns already in the history
	cwd        string // the agent's working directory, "" if not found
	stream     bool
	model      string
	structured bool // the request asks for structured output
	// tools maps the name of every tool the request offers to its type
	// ("function", "custom"); Responses requests only.
	tools map[string]string
}

// maxBody bounds a request body; an agent's history can be large.
const maxBody = 64 << 20

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	e := Entry{
		Time: time.Now().UTC().Format(time.RFC3339Nano), Method: r.Method, Path: r.URL.RequestURI(),
		Rule: -1, Turn: -1, Headers: headers(r.Header),
	}
	if json.Valid(body) {
		e.Body = body
	} else if len(body) > 0 {
		e.Body, _ = json.Marshal(string(body))
	}
	if err != nil {
		e.Status = http.StatusBadRequest
		s.log(e)
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if a, ok := apis[r.URL.Path]; ok && r.Method == http.MethodPost {
		e.API = a.name
		c, err := a.parse(body)
		if err != nil {
			s.badRequest(w, e, err)
			return
		}
		s.answer(w, r, e, c, a.writer)
		return
	}
	e.Status = http.StatusNotFound
	s.log(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"fakemodel serves POST /v1/messages and POST /v1/responses only, not %s %s"}}`, r.Method, r.URL.Path)
}

// api is one model API the fake serves.
type api struct {
	name   string
	parse  func(body []byte) (call, error)
	writer apiWriter
}

// apis are the APIs by path.
var apis = map[string]api{
	"/v1/messages":  {"anthropic", parseAnthropic, anthropicWriter{}},
	"/v1/responses": {"responses", parseResponses, responsesWriter{}},
}

func (s *Server) badRequest(w http.ResponseWriter, e Entry, err error) {
	e.Status = http.StatusBadRequest
	e.Answer = err.Error()
	s.log(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	msg, _ := json.Marshal("fakemodel: " + err.Error())
	fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%s}}`, msg)
}

// apiWriter writes one turn in the wire format of an API.
type apiWriter interface {
	// turn answers t (text, tool call or structured object) to c.
	turn(w http.ResponseWriter, c call, t Turn) error
	// fail answers an HTTP error.
	fail(w http.ResponseWriter, status int, body string)
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, e Entry, c call, aw apiWriter) {
	e.Rule = s.sc.Pick(c.firstText)
	e.Turn = c.turns
	if f, ok := s.takeFail(c.firstText); ok {
		e.Status, e.Answer = f.Status, fmt.Sprintf("fail %d", f.Status)
		s.log(e)
		aw.fail(w, f.Status, f.Body)
		return
	}
	t := s.sc.TurnAt(e.Rule, c.turns)
	switch {
	case t.Hang:
		e.Status, e.Answer = 0, "hang"
		s.log(e)
		<-r.Context().Done()
		return
	case t.Status != 0:
		e.Status, e.Answer = t.Status, fmt.Sprintf("status %d", t.Status)
		s.log(e)
		aw.fail(w, t.Status, t.Body)
		return
	}
	e.Status, e.Answer = http.StatusOK, t.summary()
	s.log(e)
	if err := aw.turn(w, c, t); err != nil {
		// The status line is gone already; the client sees a cut stream.
		fmt.Fprintf(os.Stderr, "fakemodel: %s: %v\n", e.Path, err)
	}
}

func (t Turn) summary() string {
	switch {
	case t.Tool != "":
		return "tool " + t.Tool
	case len(t.Structured) > 0:
		return "structured"
	}
	return "text"
}

// log appends e to the log file as one JSON line.
func (s *Server) log(e Entry) {
	if s.logPath == "" {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: open log: %v\n", err)
		return
	}
	defer f.Close()
	// One write per line: O_APPEND keeps lines of several servers whole.
	if _, err := f.Write(append(line, '\n')); err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: write log: %v\n", err)
	}
}

// headers keeps the request's headers, one value each, with credentials
// reduced to whether they were sent.
func headers(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		k = strings.ToLower(k)
		val := strings.Join(v, ", ")
		if k == "authorization" || k == "x-api-key" {
			val = "(set)"
		}
		out[k] = val
	}
	return out
}

// failState is the state file: how many requests each Fail answered.
type failState struct {
	Used []int `json:"used"`
}

// takeFail uses up one failure that applies to a request whose first user
// text is text, if any is left.
func (s *Server) takeFail(text string) (Fail, bool) {
	if len(s.sc.Fail) == 0 {
		return Fail{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.statePath == "" {
		s.statePath = filepath.Join(os.TempDir(), fmt.Sprintf("fakemodel-state-%d-%p.json", os.Getpid(), s))
	}
	fl := flock.New(s.statePath + ".lock")
	if err := fl.Lock(); err != nil {
		fmt.Fprintf(os.Stderr, "fakemodel: lock state: %v\n", err)
		return Fail{}, false
	}
	defer fl.Unlock()
	var st failState
	if data, err := os.ReadFile(s.statePath); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			fmt.Fprintf(os.Stderr, "fakemodel: state %s: %v\n", s.statePath, err)
		}
	}
	for len(st.Used) < len(s.sc.Fail) {
		st.Used = append(st.Used, 0)
	}
	for i, f := range s.sc.Fail {
		if st.Used[i] >= f.Times || !strings.Contains(text, f.Match) {
			continue
		}
		st.Used[i]++
		data, _ := json.Marshal(st)
		if err := os.WriteFile(s.statePath, data, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "fakemodel: write state: %v\n", err)
		}
		return f, true
	}
	return Fail{}, false
}
