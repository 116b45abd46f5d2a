// Package fakegh is a fake GitHub for tests only: an HTTP server that
// speaks the REST paths and JSON shapes gh-specstack uses (issues,
// sub-issues, dependencies, pulls, comments, stacks and the one GraphQL
// mutation), keeps everything in memory (saved as JSON between commands),
// and reads branch heads from a local bare git repository serving as the
// repository's origin. Main is the `fakegh` command test scripts use to
// seed it, run a command against it, and dump what it holds.
package fakegh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/renameio/v2"
)

// State is everything the fake holds.
type State struct {
	Repos map[string]*Repo `json:"repos"` // by "owner/name"
	Log   []Request        `json:"log"`   // every request served, in order
	// Faults are answers the fake gives instead of serving, once each:
	// a request GitHub failed.
	Faults []Fault `json:"faults,omitempty"`
	// RunnerTimeout bounds each dispatched run (a Go duration; default
	// DefaultRunTimeout).
	RunnerTimeout string `json:"runner_timeout,omitempty"`
}

// Fault answers the next Times requests of Method on Path (without the
// query) with Status, instead of serving them.
type Fault struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Times  int    `json:"times"`
	// RetryAfter, when positive, is sent as Retry-After (seconds).
	RetryAfter int `json:"retry_after,omitempty"`
}

// Request is one request the fake served.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"` // with the query, if any
	Status int    `json:"status"`
}

// Repo is one repository.
type Repo struct {
	Owner          string     `json:"owner"`
	Name           string     `json:"name"`
	DefaultBranch  string     `json:"default_branch"`
	Origin         string     `json:"origin"` // path of the bare git repository
	StacksDisabled bool       `json:"stacks_disabled"`
	Next           int        `json:"next"` // next issue/pull number (shared, as on GitHub)
	NextStack      int        `json:"next_stack"`
	Issues         []*Issue   `json:"issues"`
	Pulls          []*Pull    `json:"pulls"`
	Stacks         []*Stack   `json:"stacks"`
	Comments       []*Comment `json:"comments"`
	// Runs are the workflow runs dispatches created; Secrets the
	// repository's Actions secrets, by name.
	Runs    []*Run            `json:"runs,omitempty"`
	NextRun int64             `json:"next_run,omitempty"`
	Secrets map[string]string `json:"secrets,omitempty"`
	// NoRunDetails refuses a dispatch's return_run_details, as GitHub
	// Enterprise Server did before it knew it.
	NoRunDetails bool `json:"no_run_details,omitempty"`
	// RunnerPlan says how the next dispatched runs go, one step each;
	// once it is used up, runs run their worker step.
	RunnerPlan []RunnerStep `json:"runner_plan,omitempty"`
	// ReadOnly serves the token's permissions as read access only.
	ReadOnly bool `json:"read_only,omitempty"`
}

// Issue is an issue.
type Issue struct {
	Number    int      `json:"number"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	State     string   `json:"state"`
	Labels    []string `json:"labels"`
	SubIssues []int    `json:"sub_issues"` // in the parent's order
	BlockedBy []int    `json:"blocked_by"`
	// NoNumber serves the issue without its "number" field: data that
	// makes no sense, which gh-specstack must report.
	NoNumber bool `json:"no_number,omitempty"`
}

// Pull is a pull request.
type Pull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Head   string `json:"head"`
	Base   string `json:"base"`
	Draft  bool   `json:"draft"`
	State  string `json:"state"`
}

// Stack is a native stack: its pull requests, bottom first.
type Stack struct {
	Number int   `json:"number"`
	Pulls  []int `json:"pulls"`
}

// Comment is an issue or pull request comment.
type Comment struct {
	ID     int64  `json:"id"`
	Number int    `json:"number"`
	Body   string `json:"body"`
}

// NewState returns an empty state.
func NewState() *State { return &State{Repos: map[string]*Repo{}} }

// Load reads the state at path; a missing file is an empty state.
func Load(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	s := NewState()
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("decode %q: %w", path, err)
	}
	if s.Repos == nil {
		s.Repos = map[string]*Repo{}
	}
	return s, nil
}

// Save writes the state to path atomically.
func (s *State) Save(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	return nil
}

// Repo returns the repository "owner/name", or nil.
func (s *State) Repo(full string) *Repo { return s.Repos[full] }

// AddRepo registers (or updates) a repository.
func (s *State) AddRepo(owner, name, origin, defaultBranch string) *Repo {
	full := owner + "/" + name
	r := s.Repos[full]
	if r == nil {
		r = &Repo{Owner: owner, Name: name, Next: 1, NextStack: 1}
		s.Repos[full] = r
	}
	r.Origin, r.DefaultBranch = origin, defaultBranch
	return r
}

// RepoNames lists the registered repositories, sorted.
func (s *State) RepoNames() []string {
	var res []string
	for k := range s.Repos {
		res = append(res, k)
	}
	sort.Strings(res)
	return res
}

func (r *Repo) issue(n int) *Issue {
	for _, i := range r.Issues {
		if i.Number == n {
			return i
		}
	}
	return nil
}

func (r *Repo) pull(n int) *Pull {
	for _, p := range r.Pulls {
		if p.Number == n {
			return p
		}
	}
	return nil
}

func (r *Repo) stack(n int) *Stack {
	for _, s := range r.Stacks {
		if s.Number == n {
			return s
		}
	}
	return nil
}

// stackOf returns the stack holding pull n and n's 1-based position.
func (r *Repo) stackOf(n int) (*Stack, int) {
	for _, s := range r.Stacks {
		for i, p := range s.Pulls {
			if p == n {
				return s, i + 1
			}
		}
	}
	return nil, 0
}

// AddIssue creates an issue and returns it.
func (r *Repo) AddIssue(title, body string, labels []string, closed bool) *Issue {
	i := &Issue{Number: r.Next, Title: title, Body: body, State: "open", Labels: labels}
	if closed {
		i.State = "closed"
	}
	r.Next++
	r.Issues = append(r.Issues, i)
	return i
}

// AddSubIssue appends child to parent's sub-issues.
func (r *Repo) AddSubIssue(parent, child int) error {
	p, c := r.issue(parent), r.issue(child)
	if p == nil || c == nil {
		return fmt.Errorf("sub-issue %d of %d: no such issue", child, parent)
	}
	p.SubIssues = append(p.SubIssues, child)
	return nil
}

// AddBlockedBy records that issue n is blocked by issue by.
func (r *Repo) AddBlockedBy(n, by int) error {
	i := r.issue(n)
	if i == nil || r.issue(by) == nil {
		return fmt.Errorf("%d blocked by %d: no such issue", n, by)
	}
	i.BlockedBy = append(i.BlockedBy, by)
	return nil
}
