package stack

import (
	"context"
	"fmt"
	"io"

	"github.com/specstack/specstack/stack/ghapi"
)

// PRRequest is one branch's pull request to publish: `gh specstack pr`,
// which jj-openspec runs for apply's and propose --publish's.
type PRRequest struct {
	Branch string
	Title  string
	Body   string
	Base   string // "" for the repository's default branch
	Draft  bool
}

// PRResult is what `gh specstack pr` reports.
type PRResult struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	// Push is pushed, or already-published when origin had the branch
	// at that commit.
	Push   string `json:"push"`
	Number int    `json:"number"`
	URL    string `json:"url"`
	Action string `json:"action"` // created or updated
	// Notes say what of the request an open pull request kept as it was
	// (title, base and draft are for a new one).
	Notes []string `json:"notes"`
}

// WriteText writes r for a person.
func (r *PRResult) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s: %s to %s; pull request #%d %s (%s)\n", r.Branch, r.Push, Remote, r.Number, r.Action, r.URL); err != nil {
		return err
	}
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// PublishPR pushes req.Branch to origin once (never over another commit,
// never forced), then updates the body of its open pull request, or opens
// one (a draft when req.Draft).
func PublishPR(ctx context.Context, env *Env, req PRRequest) (*PRResult, error) {
	pushed, err := env.VCS.Publish(ctx, req.Branch)
	if err != nil {
		return nil, err
	}
	res := &PRResult{Repo: env.GH.T.Repo(), Branch: req.Branch, Push: string(pushed), Notes: []string{}}
	pr := ghapi.NewPull{Title: req.Title, Head: req.Branch, Base: req.Base, Body: req.Body, Draft: req.Draft}
	pulls, err := env.GH.Pulls(ctx, ghapi.PullFilter{State: "open", Head: pr.Head})
	if err != nil {
		return res, fmt.Errorf("find the pull request of %s: %w", pr.Head, err)
	}
	if len(pulls) > 0 {
		up, err := env.GH.UpdatePull(ctx, pulls[0].Number, ghapi.PullUpdate{Body: &pr.Body})
		if err != nil {
			return res, fmt.Errorf("update pull request #%d: %w", pulls[0].Number, err)
		}
		res.Number, res.URL, res.Action = up.Number, up.HTMLURL, "updated"
		open := pulls[0]
		if req.Title != "" && req.Title != open.Title {
			res.Notes = append(res.Notes, fmt.Sprintf("#%d keeps its title %q (--title is for a new pull request)", open.Number, open.Title))
		}
		if req.Base != "" && req.Base != open.Base.Ref {
			res.Notes = append(res.Notes, fmt.Sprintf("#%d keeps its base %s (--base %s is for a new pull request; change it on GitHub or with gh pr edit --base)", open.Number, open.Base.Ref, req.Base))
		}
		if req.Draft && !open.Draft {
			res.Notes = append(res.Notes, fmt.Sprintf("#%d stays ready for review (--draft is for a new pull request)", open.Number))
		}
		return res, nil
	}
	if pr.Base == "" {
		repo, err := env.GH.Repository(ctx)
		if err != nil {
			return res, fmt.Errorf("read the repository's default branch: %w", err)
		}
		pr.Base = repo.DefaultBranch
	}
	made, err := env.GH.CreatePull(ctx, pr)
	if err != nil {
		return res, fmt.Errorf("open the pull request of %s: %w", pr.Head, err)
	}
	res.Number, res.URL, res.Action = made.Number, made.HTMLURL, "created"
	return res, nil
}

// PushResult is what `gh specstack push` reports.
type PushResult struct {
	Branch string `json:"branch"`
	Push   string `json:"push"` // pushed or already-published
}

// WriteText writes r for a person.
func (r *PushResult) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: %s to %s\n", r.Branch, r.Push, Remote)
	return err
}
