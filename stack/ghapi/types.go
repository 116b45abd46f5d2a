package ghapi

import "strings"

// Label is an issue label.
type Label struct {
	Name string `json:"name"`
}

// Issue is what gh-specstack reads of an issue.
type Issue struct {
	ID      int64   `json:"id"`
	NodeID  string  `json:"node_id"`
	Number  int     `json:"number"`
	Title   string  `json:"title"`
	Body    string  `json:"body"`
	State   string  `json:"state"` // "open" or "closed"
	Labels  []Label `json:"labels"`
	HTMLURL string  `json:"html_url"`
	// PullRequest is set when the issue is a pull request.
	PullRequest *struct{} `json:"pull_request,omitempty"`
}

// HasLabel reports whether the issue carries label name (case-insensitive,
// as GitHub compares labels).
func (i Issue) HasLabel(name string) bool {
	for _, l := range i.Labels {
		if strings.EqualFold(l.Name, name) {
			return true
		}
	}
	return false
}

// Ref is one side of a pull request.
type Ref struct {
	Ref   string `json:"ref"`
	SHA   string `json:"sha"`
	Label string `json:"label,omitempty"`
}

// PullStack is the stack membership GitHub reports on a pull request.
type PullStack struct {
	ID       int64 `json:"id"`
	Number   int   `json:"number"`
	Size     int   `json:"size"`
	Position int   `json:"position"`
}

// PullRequest is what gh-specstack reads of a pull request.
type PullRequest struct {
	ID       int64      `json:"id"`
	NodeID   string     `json:"node_id"`
	Number   int        `json:"number"`
	State    string     `json:"state"` // "open" or "closed"
	Title    string     `json:"title"`
	Body     string     `json:"body"`
	Draft    bool       `json:"draft"`
	HTMLURL  string     `json:"html_url"`
	Head     Ref        `json:"head"`
	Base     Ref        `json:"base"`
	MergedAt *string    `json:"merged_at"`
	Stack    *PullStack `json:"stack,omitempty"`
}

// Repository is what gh-specstack reads of a repository.
type Repository struct {
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
	HTMLURL       string `json:"html_url"`
	// Permissions are the token's on the repository (GitHub sends them to
	// an authenticated request); nil when not sent.
	Permissions *Permissions `json:"permissions,omitempty"`
}

// Permissions are what a token may do in a repository: Push (write
// access) is what dispatching a workflow needs.
type Permissions struct {
	Admin bool `json:"admin"`
	Push  bool `json:"push"`
	Pull  bool `json:"pull"`
}

// StackEntry is one pull request of a stack, bottom first.
type StackEntry struct {
	Number   int     `json:"number"`
	State    string  `json:"state"`
	Draft    bool    `json:"draft"`
	MergedAt *string `json:"merged_at"`
	Head     Ref     `json:"head"`
}

// StackBase is the branch a stack merges into.
type StackBase struct {
	Ref string `json:"ref"`
}

// Stack is a native GitHub pull-request stack.
type Stack struct {
	ID           int64        `json:"id"`
	Number       int          `json:"number"`
	NodeID       string       `json:"node_id,omitempty"`
	URL          string       `json:"url,omitempty"`
	Base         StackBase    `json:"base"`
	Open         bool         `json:"open"`
	CreatedAt    string       `json:"created_at,omitempty"`
	PullRequests []StackEntry `json:"pull_requests"`
}

// Numbers returns the stack's pull request numbers, bottom first.
func (s Stack) Numbers() []int {
	res := make([]int, len(s.PullRequests))
	for i, p := range s.PullRequests {
		res[i] = p.Number
	}
	return res
}

// Comment is an issue or pull request comment.
type Comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
}
