package osapply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/stack"
	"github.com/specstack/specstack/stack/ghapi"
)

// AuthorRequest is one `jj openspec propose|new|ff CHANGE`: the authoring
// shape.
type AuthorRequest struct {
	Verb          string // propose, new or ff
	Change        string
	Worker        string
	Timeout       string
	Publish       bool
	WorkspacesDir string
	// Idea, when set, is the requester's description of the change to
	// draft (relay's IDEA): written into the worker's brief, a file.
	Idea string
}

// AuthorResult is what an authoring run produced.
type AuthorResult struct {
	Verb     string `json:"verb"`
	Change   string `json:"change"`
	Bookmark string `json:"bookmark"`
	Base     string `json:"base"`
	Commit   string `json:"commit"`
	// Revision is the proposal revision: the commit the worker reported
	// ("Revision: <commit id>" in its report) when it is one of the
	// drafted commits, else the one jj log shows holding the draft
	// (Commit); RevisionFrom says which ("report" or "jj log").
	Revision     string       `json:"revision"`
	RevisionFrom string       `json:"revision_from"`
	ChangeID     string       `json:"change_id"`
	Files        []string     `json:"files"`
	Health       string       `json:"health_check"`
	Valid        bool         `json:"valid"`
	Issues       []spec.Issue `json:"issues"`
	Ready        bool         `json:"apply_ready"`
	Worker       string       `json:"worker_status"`
	Published    string       `json:"published,omitempty"`
	PR           *PRView      `json:"pr,omitempty"`
}

// AuthorMessage describes the change an authoring worker writes.
func AuthorMessage(verb, change string) string {
	return fmt.Sprintf("docs(openspec): %s %s", verb, change)
}

// Author runs the authoring shape: one worker creates (propose, new) or
// completes (ff) the change's artifacts in a jj workspace based on
// trunk(); the result is validated and surfaced on change/<slug>
// (pushed with a draft pull request when Publish); it is never verified,
// archived or merged. The project lock is held throughout.
func Author(ctx context.Context, env *Env, req AuthorRequest) (*AuthorResult, error) {
	name := req.Change
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || name == "archive" {
		return nil, exitcode.New(exitcode.Usage, "%s: name the change to author (a folder name under openspec/changes/, such as add-export)", req.Verb)
	}
	if req.Worker == "" {
		return nil, exitcode.New(exitcode.Usage, "no worker command: pass --worker CMD or set [worker] command in specstack.toml")
	}
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	res := &AuthorResult{Verb: req.Verb, Change: name, Bookmark: "change/" + Slug(name), Issues: []spec.Issue{}}
	// Gate or no-op by the change directory's existence.
	exists := env.Root.CheckChange(name) == nil
	switch {
	case exists && req.Verb != "ff":
		return nil, exitcode.New(exitcode.NeedsChoice, "change %q already exists: `jj openspec ff %s` completes its artifacts, `jj openspec apply %s` implements it", name, name, name)
	case exists:
		if err := HealthCheck(env.Root, name, env.Markers); err != nil {
			return nil, err
		}
		res.Health = "passed"
	default:
		res.Health = "skipped (new change)"
	}
	if err := checkBookmark(ctx, env.Repo, res.Bookmark, ""); err != nil {
		return nil, err
	}
	base, err := env.Repo.ChangeIDs(ctx, "trunk()")
	if err != nil || len(base) != 1 {
		return nil, fmt.Errorf("resolve trunk(): %v", err)
	}
	res.Base = base[0]
	b := engine.NewJJBackend(env.Repo, req.WorkspacesDir, "openspec-author-")
	ws, err := b.Provision(ctx, engine.Workspace{Name: "openspec-author-" + Slug(name), Base: base, Message: AuthorMessage(req.Verb, name)})
	if err != nil {
		return nil, fmt.Errorf("provision the authoring workspace: %w", err)
	}
	art := engine.ArtifactsDir(env.Dir)
	if err := os.MkdirAll(art, 0o755); err != nil {
		return nil, fmt.Errorf("artifacts %s: %w", art, err)
	}
	stem := filepath.Join(art, "author-"+Slug(name))
	j := engine.Job{Command: req.Worker, Dir: ws.Path, Role: "author", Task: name,
		Brief: stem + "-brief.md", Report: stem + "-report.md", Log: stem + ".log",
		Environment: []string{"SPECSTACK_ARTIFACTS=" + art, "SPECSTACK_CHANGE=" + name}}
	if req.Timeout != "" {
		if d, err := time.ParseDuration(req.Timeout); err == nil && d > 0 {
			j.Timeout = d
		}
	}
	os.Remove(j.Report)
	if err := os.WriteFile(j.Brief, []byte(authorBrief(req.Verb, name, req.Idea)), 0o644); err != nil {
		return nil, fmt.Errorf("write the brief: %w", err)
	}
	fmt.Fprintf(env.Out, "%s: worker started in %s (log %s)\n", req.Verb, ws.Path, j.Log)
	run := engine.RunJob(ctx, j)
	if ctx.Err() != nil {
		return nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	res.Worker = engine.StatusCrashed
	if st, ok := engine.ReportStatus(j.Report); ok {
		res.Worker = st
	} else if run.ExitCode == 0 && run.Err == nil {
		res.Worker = engine.StatusDone
	}
	p, err := b.Collect(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("collect the authoring workspace %s: %w", ws.Path, err)
	}
	if p.Empty() || (res.Worker != engine.StatusDone && res.Worker != engine.StatusConcerns) {
		return res, exitcode.New(exitcode.Halted, "%s %s: the worker ended %s (exit %d) and left %s; its workspace %s is kept (log %s)",
			req.Verb, name, res.Worker, run.ExitCode, plural.Count(len(p.Files), "file", "files"), ws.Path, j.Log)
	}
	res.Commit = p.Commit
	if err := proposalRevision(ctx, env, res, base[0], j.Report); err != nil {
		return res, err
	}
	for _, f := range p.Files {
		res.Files = append(res.Files, f.Path)
	}
	// Validate what the worker wrote, in its workspace.
	wr, err := spec.FindRoot(ws.Path)
	if err != nil {
		return res, exitcode.Wrap(exitcode.Invalid, fmt.Errorf("the worker left no OpenSpec project in %s: %w", ws.Path, err))
	}
	rep, err := wr.ValidateChange(name, spec.ValidateOptions{MainSpecs: true, Tasks: true}, false)
	if err != nil {
		return res, exitcode.Wrap(exitcode.Invalid, fmt.Errorf("validate change %q written by the worker: %w", name, err))
	}
	res.Valid, res.Issues = rep.Valid, rep.Issues
	if st, err := wr.Status(name); err == nil {
		res.Ready = st.ApplyReady
	}
	var body []byte
	if res.Valid {
		var err error
		body, err = wr.ReadFile(filepath.Join(wr.ChangeDir(name), "proposal.md"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("read change %s's proposal for the pull request body: %w", name, err)
		}
	}
	if err := env.Repo.BookmarkSet(ctx, res.Bookmark, p.Commit, false); err != nil {
		return res, fmt.Errorf("set bookmark %s: %w", res.Bookmark, err)
	}
	if err := b.Release(ctx, ws); err != nil {
		return res, fmt.Errorf("release the authoring workspace: %w", err)
	}
	if !res.Valid {
		return res, exitcode.New(exitcode.Invalid, "%s %s: the change the worker wrote is not valid (see the issues); it is on %s for you to fix, nothing was pushed", req.Verb, name, res.Bookmark)
	}
	if req.Publish {
		if err := publishDraft(ctx, env, res, string(body)); err != nil {
			return res, err
		}
	}
	return res, nil
}

// publishDraft pushes change/<slug> once and opens (or updates) a draft
// pull request with the proposal as its body.
func publishDraft(ctx context.Context, env *Env, res *AuthorResult, body string) error {
	g, err := stack.Connect(ctx, env.Repo.Root, stack.ConnectOptions{})
	if err != nil {
		return fmt.Errorf("publish %s: %w", res.Bookmark, err)
	}
	pushed, err := g.VCS.Publish(ctx, res.Bookmark)
	if err != nil {
		return err
	}
	res.Published = string(pushed)
	pulls, err := g.GH.Pulls(ctx, ghapi.PullFilter{State: "open", Head: res.Bookmark})
	if err != nil {
		return fmt.Errorf("find the pull request of %s: %w", res.Bookmark, err)
	}
	if len(pulls) > 0 {
		pr, err := g.GH.UpdatePull(ctx, pulls[0].Number, ghapi.PullUpdate{Body: &body})
		if err != nil {
			return fmt.Errorf("update pull request #%d: %w", pulls[0].Number, err)
		}
		res.PR = &PRView{Number: pr.Number, URL: pr.HTMLURL, Action: "updated"}
		return nil
	}
	repo, err := g.GH.Repository(ctx)
	if err != nil {
		return fmt.Errorf("read the repository's default branch: %w", err)
	}
	pr, err := g.GH.CreatePull(ctx, ghapi.NewPull{Title: "docs(openspec): " + res.Change, Head: res.Bookmark, Base: repo.DefaultBranch, Body: body, Draft: true})
	if err != nil {
		return fmt.Errorf("open the draft pull request of %s: %w", res.Bookmark, err)
	}
	res.PR = &PRView{Number: pr.Number, URL: pr.HTMLURL, Action: "created"}
	return nil
}

// revisionRe is a worker report's "Revision: <commit id>" line.
var revisionRe = lazyregexp.New(`(?im)^[ \t*_>-]*revision[ \t*_]*:[ \t*_]*([0-9a-f]{7,40})\b`)

// proposalRevision sets res.Revision: the commit id the worker's report
// names when it resolves to one of the drafted commits (between trunk()
// and res.Commit), else res.Commit as jj log shows it.
func proposalRevision(ctx context.Context, env *Env, res *AuthorResult, base, report string) error {
	res.Revision, res.RevisionFrom = res.Commit, "jj log"
	if data, err := os.ReadFile(report); err == nil {
		if m := revisionRe.FindAllStringSubmatch(string(data), -1); len(m) > 0 {
			id := m[len(m)-1][1]
			// id is hex (the pattern), so it is a commit id prefix, never a revset.
			ids, err := env.Repo.CommitIDs(ctx, fmt.Sprintf("present(commit_id(%s)) & (%s..%s)", id, base, res.Commit))
			if err == nil && len(ids) == 1 {
				res.Revision, res.RevisionFrom = ids[0], "report"
			} else {
				fmt.Fprintf(env.Out, "%s: the worker's report names revision %s, which is not one of the drafted commits; using %s\n", res.Verb, id, shortID(res.Commit))
			}
		}
	}
	c, err := env.Repo.One(ctx, res.Revision)
	if err != nil {
		return fmt.Errorf("read the proposal revision %s: %w", shortID(res.Revision), err)
	}
	res.ChangeID = c.ChangeID
	return nil
}

// authorBrief is an authoring worker's instructions.
func authorBrief(verb, change, idea string) string {
	what := "Create the OpenSpec change"
	if verb == "ff" {
		what = "Complete every missing artifact of the OpenSpec change"
	}
	if idea != "" {
		what = "From the idea below, create the OpenSpec change"
	}
	brief := fmt.Sprintf(`# %s %s

%s %q under openspec/changes/%s/ in this workspace: proposal.md (why, what
changes), specs/<capability>/spec.md delta specs (## ADDED/MODIFIED/REMOVED
Requirements, each requirement with a "#### Scenario:"), design.md when
needed, and tasks.md ("## 1. Group" headings, "- [ ] 1.1 Task" lines naming
the files each task touches).

Author the artifacts only: implement nothing, archive nothing, push nothing.
jj-openspec validates the result and surfaces it on change/%s.

Write your report to $SPECSTACK_REPORT with a line "Status: DONE" (or
DONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT). When you commit, you may name
the commit holding the proposal with a line "Revision: <commit id>".
`, verb, change, what, change, change, Slug(change))
	if idea != "" {
		brief += "\n## The idea\n\n" + idea + "\n"
	}
	return brief
}
