package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrStacksDisabled reports that the stacks API answered 404: stacked
// pull requests are not enabled for the repository.
var ErrStacksDisabled = errors.New("stacked pull requests are not enabled for this repository")

// Repository reads the repository.
func (c *Client) Repository(ctx context.Context) (Repository, error) {
	var r Repository
	err := c.do(ctx, http.MethodGet, c.repoPath(""), nil, &r)
	return r, err
}

// FileExists reports whether the repository holds a file at path (slash
// separated) on ref, through the contents API.
func (c *Client) FileExists(ctx context.Context, path, ref string) (bool, error) {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	var f struct {
		Type string `json:"type"`
	}
	err := c.do(ctx, http.MethodGet, c.repoPath("/contents/%s?ref=%s", strings.Join(segs, "/"), url.QueryEscape(ref)), nil, &f)
	if IsStatus(err, http.StatusNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return f.Type == "file", nil
}

// Issue reads issue n.
func (c *Client) Issue(ctx context.Context, n int) (Issue, error) {
	var i Issue
	err := c.do(ctx, http.MethodGet, c.repoPath("/issues/%d", n), nil, &i)
	return i, err
}

// SubIssues lists issue n's sub-issues in the parent's own order.
func (c *Client) SubIssues(ctx context.Context, n int) ([]Issue, error) {
	return getAll[Issue](ctx, c, c.repoPath("/issues/%d/sub_issues", n))
}

// BlockedBy lists the issues recorded as blocking issue n.
func (c *Client) BlockedBy(ctx context.Context, n int) ([]Issue, error) {
	return getAll[Issue](ctx, c, c.repoPath("/issues/%d/dependencies/blocked_by", n))
}

// Comments lists the comments of issue or pull request n.
func (c *Client) Comments(ctx context.Context, n int) ([]Comment, error) {
	return getAll[Comment](ctx, c, c.repoPath("/issues/%d/comments", n))
}

// AddComment comments on issue or pull request n.
func (c *Client) AddComment(ctx context.Context, n int, body string) (Comment, error) {
	var cm Comment
	err := c.do(ctx, http.MethodPost, c.repoPath("/issues/%d/comments", n), map[string]string{"body": body}, &cm)
	return cm, err
}

// PullFilter narrows a pull request listing; zero fields are left out.
type PullFilter struct {
	State string // open (GitHub's default), closed or all
	Head  string // branch name in this repository
	Base  string
}

// Pulls lists pull requests.
func (c *Client) Pulls(ctx context.Context, f PullFilter) ([]PullRequest, error) {
	q := url.Values{}
	if f.State != "" {
		q.Set("state", f.State)
	}
	if f.Head != "" {
		q.Set("head", c.T.Owner+":"+f.Head)
	}
	if f.Base != "" {
		q.Set("base", f.Base)
	}
	path := c.repoPath("/pulls")
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return getAll[PullRequest](ctx, c, path)
}

// Pull reads pull request n.
func (c *Client) Pull(ctx context.Context, n int) (PullRequest, error) {
	var p PullRequest
	err := c.do(ctx, http.MethodGet, c.repoPath("/pulls/%d", n), nil, &p)
	return p, err
}

// NewPull is a pull request to open.
type NewPull struct {
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	Body  string `json:"body,omitempty"`
	Draft bool   `json:"draft"`
}

// CreatePull opens a pull request.
func (c *Client) CreatePull(ctx context.Context, p NewPull) (PullRequest, error) {
	var res PullRequest
	err := c.do(ctx, http.MethodPost, c.repoPath("/pulls"), p, &res)
	return res, err
}

// PullUpdate changes a pull request; nil fields are left alone.
type PullUpdate struct {
	Title *string `json:"title,omitempty"`
	Body  *string `json:"body,omitempty"`
	Base  *string `json:"base,omitempty"`
}

// UpdatePull changes pull request n.
func (c *Client) UpdatePull(ctx context.Context, n int, u PullUpdate) (PullRequest, error) {
	var res PullRequest
	err := c.do(ctx, http.MethodPatch, c.repoPath("/pulls/%d", n), u, &res)
	return res, err
}

// Stacks lists the repository's stacks; ErrStacksDisabled when the
// stacks API answers 404.
func (c *Client) Stacks(ctx context.Context) ([]Stack, error) {
	res, err := getAll[Stack](ctx, c, c.repoPath("/stacks"))
	if IsStatus(err, http.StatusNotFound) {
		return nil, fmt.Errorf("%s: %w", c.T.Repo(), ErrStacksDisabled)
	}
	return res, err
}

// CreateStack registers pull requests (bottom first) as a stack.
func (c *Client) CreateStack(ctx context.Context, pulls []int) (Stack, error) {
	var s Stack
	err := c.do(ctx, http.MethodPost, c.repoPath("/stacks"), map[string][]int{"pull_requests": pulls}, &s)
	if IsStatus(err, http.StatusNotFound) {
		return s, fmt.Errorf("%s: %w", c.T.Repo(), ErrStacksDisabled)
	}
	return s, err
}

// AddToStack puts pull requests (lowest first) on top of stack number.
func (c *Client) AddToStack(ctx context.Context, number int, pulls []int) (Stack, error) {
	var s Stack
	err := c.do(ctx, http.MethodPost, c.repoPath("/stacks/%d/add", number), map[string][]int{"pull_requests": pulls}, &s)
	return s, err
}

// MarkReady turns a draft pull request (by node ID) ready for review, the
// one thing REST cannot do.
func (c *Client) MarkReady(ctx context.Context, nodeID string) error {
	req := map[string]any{
		"query":     `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { number isDraft } } }`,
		"variables": map[string]string{"id": nodeID},
	}
	var res struct {
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, c.graphQLURL(), req, &res); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		return fmt.Errorf("mark %s ready: GraphQL: %s", nodeID, res.Errors[0].Message)
	}
	return nil
}
