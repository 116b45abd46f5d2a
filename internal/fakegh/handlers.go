package fakegh

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/specstack/specstack/gitx"
)

func (s *Server) getRepo(w http.ResponseWriter, req *http.Request, r *Repo) {
	writeJSON(w, http.StatusOK, map[string]any{
		"full_name":      r.Owner + "/" + r.Name,
		"name":           r.Name,
		"owner":          map[string]string{"login": r.Owner},
		"default_branch": r.DefaultBranch,
		"html_url":       "https://github.com/" + r.Owner + "/" + r.Name,
		"permissions":    map[string]bool{"admin": false, "push": !r.ReadOnly, "pull": true},
	})
}

// getContents serves a file of the origin at ref (the default branch
// when none): GitHub's file object, its content base64; a directory or a
// missing path is 404 (the fake serves files only).
func (s *Server) getContents(w http.ResponseWriter, req *http.Request, r *Repo) {
	ref := req.URL.Query().Get("ref")
	if ref == "" {
		ref = r.DefaultBranch
	}
	path := req.PathValue("path")
	var blobs []gitx.Blob
	var err error
	if r.Origin != "" && ref != "" && !strings.ContainsAny(ref+path, "\n:") {
		blobs, err = (&gitx.Repo{Dir: r.Origin}).ReadFiles(req.Context(), []string{ref + ":" + path})
	}
	if err != nil || len(blobs) != 1 || !blobs[0].Exists {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	name := path[strings.LastIndex(path, "/")+1:]
	writeJSON(w, http.StatusOK, map[string]any{
		"type": "file", "name": name, "path": path, "size": len(blobs[0].Content),
		"encoding": "base64", "content": base64.StdEncoding.EncodeToString(blobs[0].Content),
	})
}

func (s *Server) issueOr404(w http.ResponseWriter, req *http.Request, r *Repo) *Issue {
	n, ok := number(w, req)
	if !ok {
		return nil
	}
	i := r.issue(n)
	if i == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return i
}

func (s *Server) getIssue(w http.ResponseWriter, req *http.Request, r *Repo) {
	if i := s.issueOr404(w, req, r); i != nil {
		writeJSON(w, http.StatusOK, r.issueJSON(i))
	}
}

func (s *Server) issueList(w http.ResponseWriter, req *http.Request, r *Repo, nums []int) {
	var res []map[string]any
	for _, n := range nums {
		if i := r.issue(n); i != nil {
			res = append(res, r.issueJSON(i))
		}
	}
	paginate(w, req, res)
}

func (s *Server) subIssues(w http.ResponseWriter, req *http.Request, r *Repo) {
	if i := s.issueOr404(w, req, r); i != nil {
		s.issueList(w, req, r, i.SubIssues)
	}
}

func (s *Server) blockedBy(w http.ResponseWriter, req *http.Request, r *Repo) {
	if i := s.issueOr404(w, req, r); i != nil {
		s.issueList(w, req, r, i.BlockedBy)
	}
}

func (s *Server) listComments(w http.ResponseWriter, req *http.Request, r *Repo) {
	n, ok := number(w, req)
	if !ok {
		return
	}
	if r.issue(n) == nil && r.pull(n) == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var res []map[string]any
	for _, c := range r.Comments {
		if c.Number == n {
			res = append(res, map[string]any{"id": c.ID, "body": c.Body})
		}
	}
	paginate(w, req, res)
}

func (s *Server) addComment(w http.ResponseWriter, req *http.Request, r *Repo) {
	n, ok := number(w, req)
	if !ok {
		return
	}
	if r.issue(n) == nil && r.pull(n) == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(w, req, &in) {
		return
	}
	if in.Body == nil || *in.Body == "" {
		validation(w, "IssueComment", "body", "missing_field", "")
		return
	}
	c := &Comment{ID: int64(4000 + len(r.Comments) + 1), Number: n, Body: *in.Body}
	r.Comments = append(r.Comments, c)
	writeJSON(w, http.StatusCreated, map[string]any{"id": c.ID, "body": c.Body})
}

func (s *Server) listPulls(w http.ResponseWriter, req *http.Request, r *Repo) {
	q := req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head := q.Get("head")
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		if owner != r.Owner {
			paginate(w, req, []map[string]any{})
			return
		}
		head = branch
	}
	var res []map[string]any
	// GitHub lists newest first.
	for i := len(r.Pulls) - 1; i >= 0; i-- {
		p := r.Pulls[i]
		if (state != "all" && p.State != state) || (head != "" && p.Head != head) || (q.Get("base") != "" && p.Base != q.Get("base")) {
			continue
		}
		res = append(res, r.pullJSON(p))
	}
	paginate(w, req, res)
}

func (s *Server) pullOr404(w http.ResponseWriter, req *http.Request, r *Repo) *Pull {
	n, ok := number(w, req)
	if !ok {
		return nil
	}
	p := r.pull(n)
	if p == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return p
}

func (s *Server) getPull(w http.ResponseWriter, req *http.Request, r *Repo) {
	if p := s.pullOr404(w, req, r); p != nil {
		writeJSON(w, http.StatusOK, r.pullJSON(p))
	}
}

func (s *Server) createPull(w http.ResponseWriter, req *http.Request, r *Repo) {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !decode(w, req, &in) {
		return
	}
	if _, b, ok := strings.Cut(in.Head, ":"); ok {
		in.Head = b
	}
	switch {
	case in.Title == "":
		validation(w, "PullRequest", "title", "missing_field", "")
		return
	case in.Base == "":
		validation(w, "PullRequest", "base", "missing_field", "")
		return
	}
	if _, ok := branchSHA(r, in.Head); !ok {
		validation(w, "PullRequest", "head", "invalid", "")
		return
	}
	if _, ok := branchSHA(r, in.Base); !ok {
		validation(w, "PullRequest", "base", "invalid", "")
		return
	}
	for _, p := range r.Pulls {
		if p.State == "open" && p.Head == in.Head && p.Base == in.Base {
			validation(w, "PullRequest", "", "custom", "A pull request already exists for "+r.Owner+":"+in.Head+".")
			return
		}
	}
	p := &Pull{Number: r.Next, Title: in.Title, Body: in.Body, Head: in.Head, Base: in.Base, Draft: in.Draft, State: "open"}
	r.Next++
	r.Pulls = append(r.Pulls, p)
	writeJSON(w, http.StatusCreated, r.pullJSON(p))
}

func (s *Server) updatePull(w http.ResponseWriter, req *http.Request, r *Repo) {
	p := s.pullOr404(w, req, r)
	if p == nil {
		return
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		Base  *string `json:"base"`
		State *string `json:"state"`
	}
	if !decode(w, req, &in) {
		return
	}
	if in.Base != nil {
		if _, ok := branchSHA(r, *in.Base); !ok {
			validation(w, "PullRequest", "base", "invalid", "")
			return
		}
		p.Base = *in.Base
	}
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Body != nil {
		p.Body = *in.Body
	}
	if in.State != nil {
		p.State = *in.State
	}
	writeJSON(w, http.StatusOK, r.pullJSON(p))
}

func (s *Server) listStacks(w http.ResponseWriter, req *http.Request, r *Repo) {
	var res []map[string]any
	want, _ := strconv.Atoi(req.URL.Query().Get("pull_request"))
	for _, st := range r.Stacks {
		if want != 0 {
			if found, _ := r.stackOf(want); found != st {
				continue
			}
		}
		res = append(res, r.stackJSON(st))
	}
	paginate(w, req, res)
}

func (s *Server) getStack(w http.ResponseWriter, req *http.Request, r *Repo) {
	n, ok := number(w, req)
	if !ok {
		return
	}
	st := r.stack(n)
	if st == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, r.stackJSON(st))
}

// checkChain validates that pulls (after prev, the head branch below the
// first, "" for none) are open, in no stack, and each based on the one
// below; it writes a 422 and returns false otherwise.
func checkChain(w http.ResponseWriter, r *Repo, prev string, pulls []int) bool {
	seen := map[int]bool{}
	for _, n := range pulls {
		p := r.pull(n)
		switch {
		case p == nil:
			validation(w, "Stack", "pull_requests", "invalid", "pull request #"+strconv.Itoa(n)+" does not exist")
			return false
		case seen[n]:
			validation(w, "Stack", "pull_requests", "invalid", "pull request #"+strconv.Itoa(n)+" is listed twice")
			return false
		case p.State != "open":
			validation(w, "Stack", "pull_requests", "invalid", "pull request #"+strconv.Itoa(n)+" is not open")
			return false
		}
		if st, _ := r.stackOf(n); st != nil {
			validation(w, "Stack", "pull_requests", "invalid", "pull request #"+strconv.Itoa(n)+" is already in stack "+strconv.Itoa(st.Number))
			return false
		}
		if prev != "" && p.Base != prev {
			validation(w, "Stack", "pull_requests", "invalid", "pull request #"+strconv.Itoa(n)+" has base "+p.Base+", not "+prev)
			return false
		}
		seen[n] = true
		prev = p.Head
	}
	return true
}

func (s *Server) createStack(w http.ResponseWriter, req *http.Request, r *Repo) {
	var in struct {
		PullRequests []int `json:"pull_requests"`
	}
	if !decode(w, req, &in) {
		return
	}
	if len(in.PullRequests) < 2 {
		validation(w, "Stack", "pull_requests", "invalid", "a stack needs at least 2 pull requests")
		return
	}
	if !checkChain(w, r, "", in.PullRequests) {
		return
	}
	st := &Stack{Number: r.NextStack, Pulls: append([]int(nil), in.PullRequests...)}
	r.NextStack++
	r.Stacks = append(r.Stacks, st)
	writeJSON(w, http.StatusCreated, r.stackJSON(st))
}

func (s *Server) addToStack(w http.ResponseWriter, req *http.Request, r *Repo) {
	n, ok := number(w, req)
	if !ok {
		return
	}
	st := r.stack(n)
	if st == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var in struct {
		PullRequests []int `json:"pull_requests"`
	}
	if !decode(w, req, &in) {
		return
	}
	if len(in.PullRequests) == 0 {
		validation(w, "Stack", "pull_requests", "missing_field", "")
		return
	}
	top := r.pull(st.Pulls[len(st.Pulls)-1])
	if !checkChain(w, r, top.Head, in.PullRequests) {
		return
	}
	st.Pulls = append(st.Pulls, in.PullRequests...)
	writeJSON(w, http.StatusOK, r.stackJSON(st))
}

// graphql serves the one mutation specstack sends:
// markPullRequestReadyForReview.
func (s *Server) graphql(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Query     string            `json:"query"`
		Variables map[string]string `json:"variables"`
	}
	if !decode(w, req, &in) {
		return
	}
	if !strings.Contains(in.Query, "markPullRequestReadyForReview") {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]string{{"message": "fakegh serves only markPullRequestReadyForReview"}}})
		return
	}
	id := in.Variables["id"]
	for _, r := range s.st.Repos {
		for _, p := range r.Pulls {
			if r.pullNodeID(p.Number) == id {
				p.Draft = false
				data, _ := json.Marshal(map[string]any{"number": p.Number, "isDraft": false})
				writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"markPullRequestReadyForReview": map[string]json.RawMessage{"pullRequest": data}}})
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]string{{"message": "Could not resolve to a node with the global id of '" + id + "'"}}})
}
