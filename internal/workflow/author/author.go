package author

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/internal/workflow/apply"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
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
	// BaseOnWork: trunk() is root(), so the change was based on the
	// revision the user's work is on instead (Base).
	BaseOnWork bool `json:"base_on_work"`
	// HoldsWork: the change descends from the revision the user's work
	// is on, so `jj new` on it keeps the user's files.
	HoldsWork bool    `json:"holds_work"`
	Worker    string  `json:"worker_status"`
	Published string  `json:"published,omitempty"`
	PR        *PRView `json:"pr,omitempty"`
}

// ProposalBookmark is the bookmark an authored change is surfaced on
// (propose, new, ff and relay's first leg): change/<slug>.
func ProposalBookmark(change string) string {
	return "change/" + apply.Slug(change)
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
//
// The run is a ledger document (author/<change>.toml): an unfinished run
// of the change (killed, or halted by its worker) is resumed by the same
// call, from its recorded worker and steps; what was done is not redone.
func Author(ctx context.Context, env *Env, req AuthorRequest) (*AuthorResult, error) {
	name := req.Change
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || name == "archive" {
		return nil, exitcode.New(exitcode.Usage, "%s: name the change to author (a folder name under openspec/changes/, such as add-export)", req.Verb)
	}
	if err := apply.CheckTimeout(req.Timeout); err != nil {
		return nil, err
	}
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	path := authorPath(env.Dir, name)
	d, err := ReadAuthor(env.Dir, name)
	if err != nil {
		return nil, err
	}
	if d != nil && foldAuthor(d).Done == nil {
		// The worker and its timeout, when given, replace the recorded ones.
		d.Header.Worker = cmp.Or(req.Worker, d.Header.Worker)
		d.Header.Timeout = cmp.Or(req.Timeout, d.Header.Timeout)
		d.Header.Publish = d.Header.Publish || req.Publish
		fmt.Fprintf(env.Out, "%s: resuming run %s of %s %s (started %s)\n", d.Header.Verb, d.Header.RunID, d.Header.Verb, name, d.Header.Started.Format(time.RFC3339))
	} else {
		if d, err = newAuthorRun(ctx, env, req); err != nil {
			return nil, err
		}
		if err := d.Write(path); err != nil {
			return nil, err
		}
	}
	return author(ctx, env, d, path)
}

// newAuthorRun checks what a new authoring run needs (the gate by the
// change's existence, the bookmark, trunk()) and returns its document.
func newAuthorRun(ctx context.Context, env *Env, req AuthorRequest) (*AuthorDoc, error) {
	name := req.Change
	if err := engine.NeedWorker(req.Worker, env.Repo.Root); err != nil {
		return nil, err
	}
	h := AuthorRun{Verb: req.Verb, Change: name, Idea: req.Idea, Bookmark: ProposalBookmark(name), Worker: req.Worker,
		Timeout: req.Timeout, Publish: req.Publish, Workspace: "openspec-author-" + apply.Slug(name), WorkspacesDir: req.WorkspacesDir,
		Started: time.Now().UTC()}
	// Gate or no-op by the change directory's existence.
	exists := env.Root.CheckChange(name) == nil
	switch {
	case exists && req.Verb != "ff":
		return nil, exitcode.New(exitcode.NeedsChoice, "change %q already exists: `jj openspec ff %s` completes its artifacts, `jj openspec apply %s` implements it", name, name, name)
	case exists:
		if err := apply.HealthCheck(env.Root, name, env.Markers); err != nil {
			return nil, err
		}
		h.Health = "passed"
	default:
		h.Health = "skipped (new change)"
	}
	if err := apply.CheckBookmark(ctx, env.Repo, h.Bookmark, ""); err != nil {
		return nil, err
	}
	base, onWork, err := authorBase(ctx, env.Repo)
	if err != nil {
		return nil, err
	}
	h.Base, h.BaseOnWork = base, onWork
	op, err := env.Repo.OpHead(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the operation before %s: %w", req.Verb, err)
	}
	h.RunID = record.ShortID(op)[:8]
	return ledger.New[AuthorRun, engine.AuthorEvent](h), nil
}

// author runs (or resumes) the authoring run d, recording each step in
// its ledger document at path.
func author(ctx context.Context, env *Env, d *AuthorDoc, path string) (*AuthorResult, error) {
	h := d.Header
	name := h.Change
	record := func(p engine.Payload) error {
		return d.Append(path, engine.AuthorEvent{Event: engine.Event{At: time.Now().UTC(), Payload: p}})
	}
	st := foldAuthor(d)
	res := &AuthorResult{Verb: h.Verb, Change: name, Bookmark: h.Bookmark, Base: h.Base, BaseOnWork: h.BaseOnWork, Health: h.Health, Issues: []spec.Issue{}}
	b := engine.NewJJBackend(env.Repo, h.WorkspacesDir, "openspec-author-")
	ws := engine.Workspace{Name: h.Workspace, Base: []string{h.Base}, Message: AuthorMessage(h.Verb, name), Path: b.Path(h.Workspace)}
	art := engine.ArtifactsDir(env.Dir)
	if err := os.MkdirAll(art, 0o755); err != nil {
		return nil, fmt.Errorf("artifacts %s: %w", art, err)
	}
	stem := filepath.Join(art, "author-"+apply.Slug(name))
	j := engine.Job{Command: h.Worker, Dir: ws.Path, Role: "author", Task: name,
		Brief: stem + "-brief.md", Report: stem + "-report.md", Log: stem + ".log", PIDFile: stem + ".pid",
		Environment: []string{"SPECSTACK_ARTIFACTS=" + art, "SPECSTACK_CHANGE=" + name}}
	j.Timeout = engine.WorkerTimeout(h.Timeout) // checked by Author
	if !workerSucceeded(st.Worker) {
		// A worker a killed run left is stopped; its half-done change is
		// set aside by a workspace made (again) on the base.
		if engine.StopOrphan(j.PIDFile) {
			fmt.Fprintf(env.Out, "%s: stopped the worker the interrupted run left\n", h.Verb)
		}
		if err := provisionAuthor(ctx, env, b, &ws, h.Verb, st.Provisioned); err != nil {
			return nil, err
		}
		if !st.Provisioned {
			if err := record(engine.AuthorProvisioned{Path: ws.Path}); err != nil {
				return nil, err
			}
		}
		engine.CrashPoint("author-provisioned")
		if err := os.Remove(j.Report); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove the previous worker's report %s: %w", j.Report, err)
		}
		// Replaced, never written through: a worker that ran before may
		// have left a link (or anything else) at the brief's path.
		if err := renameio.WriteFile(j.Brief, []byte(authorBrief(h.Verb, name, h.Idea)), 0o644); err != nil {
			return nil, fmt.Errorf("write the brief %s: %w", j.Brief, err)
		}
		fmt.Fprintf(env.Out, "%s: worker started in %s (log %s)\n", h.Verb, ws.Path, j.Log)
		run := engine.RunJob(ctx, j)
		if ctx.Err() != nil {
			return nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
		}
		// The exit code wins over the report; no status is not done.
		status, why := engine.Outcome(run, j.Report, j.Log)
		ev := engine.AuthorWorked{Status: status, ExitCode: run.ExitCode}
		p, err := b.Collect(ctx, ws)
		if err != nil {
			return nil, fmt.Errorf("collect the authoring workspace %s: %w", ws.Path, err)
		}
		if p.Empty() {
			ev.Reason = "empty"
		}
		if err := record(ev); err != nil {
			return nil, err
		}
		st = foldAuthor(d)
		if !workerSucceeded(st.Worker) {
			res.Worker = ev.Status
			if why != "" {
				why = " (" + why + ")"
			}
			return res, exitcode.New(exitcode.Halted, "%s %s: the worker ended %s (exit %d)%s and left %s; its workspace %s is kept (log %s); run `jj openspec %s %s` again to retry",
				h.Verb, name, ev.Status, run.ExitCode, why, plural.Count(len(p.Files), "file", "files"), ws.Path, j.Log, h.Verb, name)
		}
		engine.CrashPoint("author-worker-ended")
	}
	res.Worker = st.Worker.Status
	// The draft: collected and validated in the workspace, once.
	if st.Drafted == nil {
		ev, err := collectDraft(ctx, env, b, ws, res, j.Report)
		if errors.Is(err, errNoDraft) {
			// Recorded as a worker that left nothing, which the next run
			// retries.
			if err := record(engine.AuthorWorked{Status: st.Worker.Status, Reason: "empty"}); err != nil {
				return res, err
			}
			return res, exitcode.New(exitcode.Halted, "%s %s: the authoring workspace %s holds no draft any more: run `jj openspec %s %s` again to run the worker again", h.Verb, name, ws.Path, h.Verb, name)
		}
		if err != nil {
			return res, err
		}
		if err := record(ev); err != nil {
			return res, err
		}
		st = foldAuthor(d)
	}
	dr := st.Drafted
	res.Commit, res.Files, res.Valid, res.Ready, res.Issues = dr.Commit, dr.Files, dr.Valid, dr.Ready, dr.Issues
	res.Revision, res.RevisionFrom, res.ChangeID = dr.Revision, dr.RevisionFrom, dr.ChangeID
	if res.Issues == nil {
		res.Issues = []spec.Issue{}
	}
	if !st.Bookmarked {
		if err := apply.CheckBookmark(ctx, env.Repo, res.Bookmark, res.Commit); err != nil {
			return res, err
		}
		if err := env.Repo.BookmarkSet(ctx, res.Bookmark, res.Commit, false); err != nil {
			return res, fmt.Errorf("set bookmark %s: %w", res.Bookmark, err)
		}
		if err := record(engine.AuthorBookmarked{Commit: res.Commit}); err != nil {
			return res, err
		}
		engine.CrashPoint("author-bookmarked")
	}
	if res.Valid && h.Publish && st.Published == nil {
		body, err := proposalBody(ws.Path, name)
		if err != nil {
			return res, err
		}
		if err := publishDraft(ctx, env, res, string(body)); err != nil {
			return res, err
		}
		ev := engine.AuthorPublished{Status: res.Published}
		if res.PR != nil {
			ev.PRNumber, ev.PRURL, ev.PRAction = res.PR.Number, res.PR.URL, res.PR.Action
		}
		if err := record(ev); err != nil {
			return res, err
		}
		st = foldAuthor(d)
		engine.CrashPoint("author-published")
	} else if st.Published != nil {
		res.Published = st.Published.Status
		if st.Published.PRURL != "" {
			res.PR = &PRView{Number: st.Published.PRNumber, URL: st.Published.PRURL, Action: st.Published.PRAction}
		}
	}
	if !st.Released {
		if err := b.Release(ctx, ws); err != nil {
			return res, fmt.Errorf("release the authoring workspace: %w", err)
		}
		if err := record(engine.AuthorReleased{}); err != nil {
			return res, err
		}
	}
	verdict := "valid"
	if !res.Valid {
		verdict = "invalid"
	}
	if err := record(engine.AuthorDone{Status: verdict, Commit: res.Commit}); err != nil {
		return res, err
	}
	if !res.Valid {
		return res, exitcode.New(exitcode.Invalid, "%s %s: the change the worker wrote is not valid (see the issues); it is on %s for you to fix, nothing was pushed", h.Verb, name, res.Bookmark)
	}
	work, err := holdsWork(ctx, env.Repo, res.Commit)
	if err != nil {
		return res, err
	}
	res.HoldsWork = work
	return res, nil
}

// authorBase is the revision an authored change is based on: trunk(),
// or, when trunk() is root() (a repository with no remote trunk
// bookmark), the revision the user's work is on, so that the change
// holds the project's files (based on root(), a working copy made on it
// would hold none of them). onWork says which.
func authorBase(ctx context.Context, repo *jjx.Repo) (base string, onWork bool, err error) {
	id, isRoot, err := repo.Trunk(ctx)
	if err != nil {
		return "", false, exitcode.Wrap(exitcode.Missing, fmt.Errorf("resolve trunk(), the base of an authored change: %w", err))
	}
	if !isRoot {
		return id, false, nil
	}
	w, err := workRevision(ctx, repo)
	if err != nil {
		return "", false, err
	}
	return w, true, nil
}

// workRevision is the revision the user's work is on: @ when it holds
// changes, else its parent (when it has exactly one).
func workRevision(ctx context.Context, repo *jjx.Repo) (string, error) {
	ats, err := repo.LogDetail(ctx, "@")
	if err == nil && len(ats) != 1 {
		err = fmt.Errorf("@ names %d revisions", len(ats))
	}
	if err != nil {
		return "", fmt.Errorf("read the working copy @: %w", err)
	}
	if at := ats[0]; at.Empty && len(at.ParentChangeIDs) == 1 {
		return at.ParentChangeIDs[0], nil
	}
	return ats[0].ChangeID, nil
}

// holdsWork reports whether commit descends from the revision the user's
// work is on, so that a working copy made on it (`jj new COMMIT`) holds
// the user's files.
func holdsWork(ctx context.Context, repo *jjx.Repo, commit string) (bool, error) {
	w, err := workRevision(ctx, repo)
	if err != nil {
		return false, err
	}
	in, err := repo.Contained(ctx, jjx.ID(w), jjx.Ancestors(jjx.ID(commit)))
	if err != nil {
		return false, fmt.Errorf("is the revision your work is on (%s) below %s: %w", record.ShortID(w), record.ShortID(commit), err)
	}
	return in[w], nil
}

// provisionAuthor makes the authoring workspace for a worker run: a new
// one, or, when the run provisioned it before, the same one reset to an
// empty change on its base (what a killed worker left is abandoned).
func provisionAuthor(ctx context.Context, env *Env, b *engine.JJBackend, ws *engine.Workspace, verb string, before bool) error {
	if before {
		problem, err := b.Check(ctx, *ws, false)
		if err != nil {
			return fmt.Errorf("check the authoring workspace %s: %w", ws.Path, err)
		}
		if problem == "" {
			if err := b.Reset(ctx, *ws); err != nil {
				return fmt.Errorf("reset the authoring workspace %s: %w", ws.Path, err)
			}
			fmt.Fprintf(env.Out, "%s: restarting the worker from a clean change in %s\n", verb, ws.Path)
			return nil
		}
	}
	made, err := b.Provision(ctx, *ws)
	if err != nil {
		return fmt.Errorf("provision the authoring workspace: %w", err)
	}
	*ws = made
	return nil
}

// collectDraft collects what the worker left and validates it in its
// workspace: the drafted event.
func collectDraft(ctx context.Context, env *Env, b *engine.JJBackend, ws engine.Workspace, res *AuthorResult, report string) (engine.Drafted, error) {
	var ev engine.Drafted
	p, err := b.Collect(ctx, ws)
	if err != nil {
		return ev, fmt.Errorf("collect the authoring workspace %s: %w", ws.Path, err)
	}
	if p.Empty() {
		return ev, errNoDraft
	}
	res.Commit = p.Commit
	if err := proposalRevision(ctx, env, res, ws.Base[0], report); err != nil {
		return ev, err
	}
	ev.Commit, ev.Revision, ev.RevisionFrom, ev.ChangeID = res.Commit, res.Revision, res.RevisionFrom, res.ChangeID
	for _, f := range p.Files {
		ev.Files = append(ev.Files, f.Path)
	}
	wr, err := spec.FindRoot(ws.Path)
	if err != nil {
		return ev, exitcode.Wrap(exitcode.Invalid, fmt.Errorf("the worker left no OpenSpec project in %s: %w", ws.Path, err))
	}
	rep, err := wr.ValidateChange(res.Change, spec.ValidateOptions{MainSpecs: true, Tasks: true}, false)
	if err != nil {
		return ev, exitcode.Wrap(exitcode.Invalid, fmt.Errorf("validate change %q written by the worker: %w", res.Change, err))
	}
	ev.Valid, ev.Issues = rep.Valid, rep.Issues
	if st, err := wr.Status(res.Change); err == nil {
		ev.Ready = st.ApplyReady
	}
	return ev, nil
}

// proposalBody reads the drafted proposal.md in the authoring workspace
// (still there: publishing comes before its release), for the draft pull
// request's body (nil when the draft has none).
func proposalBody(wsPath, change string) ([]byte, error) {
	wr, err := spec.FindRoot(wsPath)
	if err != nil {
		return nil, fmt.Errorf("read change %s's proposal in %s: %w", change, wsPath, err)
	}
	body, err := wr.ReadFile(filepath.Join(wr.ChangeDir(change), "proposal.md"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read change %s's proposal for the pull request body: %w", change, err)
	}
	return body, nil
}

// publishDraft pushes change/<slug> once and opens (or updates) a draft
// pull request with the proposal as its body.
func publishDraft(ctx context.Context, env *Env, res *AuthorResult, body string) error {
	pushed, err := forge.Publish(ctx, env.Repo.Root, res.Bookmark)
	if err != nil {
		return err
	}
	res.Published = pushed
	res.PR, err = forge.UpsertPR(ctx, env.Repo.Root, forge.NewPull{Title: "docs(openspec): " + res.Change, Head: res.Bookmark, Body: body, Draft: true})
	return err
}

// errNoDraft: the authoring workspace holds nothing to collect.
var errNoDraft = errors.New("no draft")

// revisionRe is a worker report's "Revision: <commit id>" line.
var revisionRe = lazyregexp.New(`(?im)^[ \t*_>-]*revision[ \t*_]*:[ \t*_]*([0-9a-f]{7,40})\b`)

// proposalRevision sets res.Revision: the commit id the worker's report
// names when it resolves to one of the drafted commits (between trunk()
// and res.Commit), else res.Commit as jj log shows it.
func proposalRevision(ctx context.Context, env *Env, res *AuthorResult, base, report string) error {
	res.Revision, res.RevisionFrom = res.Commit, "jj log"
	// The worker wrote the report: a link or a FIFO there is not read.
	data, err := regfile.ReadNoFollow(report)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(env.Out, "%s: the worker's report is not read (%v); using %s\n", res.Verb, err, record.ShortID(res.Commit))
	}
	if err == nil {
		if m := revisionRe.FindAllStringSubmatch(string(data), -1); len(m) > 0 {
			id := m[len(m)-1][1]
			// id is hex (the pattern), so it is a commit id prefix, never a revset.
			ids, err := env.Repo.CommitIDs(ctx, jjx.CommitInRange(id, jjx.ID(base), jjx.ID(res.Commit)))
			if err == nil && len(ids) == 1 {
				res.Revision, res.RevisionFrom = ids[0], "report"
			} else {
				fmt.Fprintf(env.Out, "%s: the worker's report names revision %s, which is not one of the drafted commits; using %s\n", res.Verb, id, record.ShortID(res.Commit))
			}
		}
	}
	c, err := env.Repo.One(ctx, res.Revision)
	if err != nil {
		return fmt.Errorf("read the proposal revision %s: %w", record.ShortID(res.Revision), err)
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
`, verb, change, what, change, change, apply.Slug(change))
	if idea != "" {
		brief += "\n## The idea\n\n" + idea + "\n"
	}
	return brief
}
