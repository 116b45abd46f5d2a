package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// Phases a Result reports.
const (
	PhaseWorkers = "workers" // the engine's phases did not finish
	PhaseTail    = "tail"    // the workers are in; verify, archive, push and PR are under way
	// PhaseWorkersFailed: a group's worker failed; nothing for the tail.
	PhaseWorkersFailed = "workers-failed"
	PhaseVerify        = "verify-failed" // the gate is red: nothing archived or pushed
	PhaseTasks         = "tasks-open"    // unticked tasks block the archive
	// PhaseSpecs: the delta specs conflict with specs edited since the
	// change was written: markers to resolve, nothing archived.
	PhaseSpecs    = "specs-conflict"
	PhaseApplied  = "applied"
	PhaseUnpushed = "applied-not-pushed" // --no-push
	PhaseNoPR     = "applied-no-pr"      // pushed, no pull request: --no-pr
)

// Result is what apply did.
type Result struct {
	Plan       *Plan                  `json:"plan"`
	Phase      string                 `json:"phase"`
	Coverage   *engine.Coverage       `json:"run,omitempty"`
	Verify     []engine.VerifyOutcome `json:"verify"`
	Ticked     []string               `json:"ticked_by_facts,omitempty"`
	Unticked   []string               `json:"unticked,omitempty"`
	ArchivedAs string                 `json:"archived_as,omitempty"`
	Commit     string                 `json:"commit,omitempty"`
	Pushed     string                 `json:"pushed,omitempty"`
	PR         *PRView                `json:"pr,omitempty"`
	// PublishCommand is the command that does what --no-push or --no-pr
	// left undone, as apply would have done it: gh specstack pr (which
	// pushes first), or gh specstack push with both flags. A pipeline
	// member's is empty: its pipeline links the stack too.
	PublishCommand string `json:"publish_command,omitempty"`
	// WorkingCopy is the change ID of the new empty change @ was left on,
	// on top of the applied one (empty for a pipeline member, or when @
	// had moved away from the bookmark).
	WorkingCopy string `json:"working_copy,omitempty"`
}

// tailState is what the ledger says of the tail so far.
type tailState struct {
	Archived  string
	Archiving string
	Ticked    []string
	Pushed    string
	// PushedCommit is the commit the push published.
	PushedCommit string
	PR           *PRView
	// Tracker: the tracker hook passed (a failed one runs again).
	Tracker   bool
	Applied   bool
	VerifyRed bool
	// VerifyGreen: the last verify gate passed.
	VerifyGreen bool
	// VerifyNote: the last verify gate's commands (passed) or reason
	// (failed).
	VerifyNote string
	Bookmarked string
	// SpecsConflict: the last forward merge of the delta specs wrote
	// conflict markers.
	SpecsConflict bool
}

func TailOf(d *engine.Doc) tailState {
	var t tailState
	for _, e := range d.Events {
		switch p := e.Payload.(type) {
		case engine.SpecsMerged:
			t.SpecsConflict = p.Status == "conflicts"
		case engine.Verified:
			t.VerifyRed = p.Status == engine.GateFailed
			t.VerifyGreen = p.Status == engine.GatePassed
			t.VerifyNote = p.Note
		case engine.Ticked:
			t.Ticked = append(t.Ticked, p.Tasks...)
		case engine.Archiving:
			t.Archiving = p.Name
		case engine.Archived:
			t.Archived = p.Name
		case engine.Bookmarked:
			t.Bookmarked = p.Commit
		case engine.Pushed:
			t.Pushed, t.PushedCommit = p.Status, p.Commit
		case engine.PROpened:
			t.PR = &PRView{Number: p.Number, URL: p.URL, Action: p.Action}
		case engine.TrackerRan:
			t.Tracker = p.Status == engine.GatePassed
		case engine.Applied:
			t.Applied = true
		}
	}
	return t
}

// tail is the reconcile tail, once over the integrated change in @:
// verify gate, tasks ticked by facts, archive, bookmark, push, PR,
// tracker. Every step is recorded; a resumed apply skips what is done.
func tail(ctx context.Context, env *Env, r *engine.Runner, p *Plan) (*Result, error) {
	res := &Result{Plan: p, Coverage: r.Report()}
	t := TailOf(r.Doc)
	res.Ticked = t.Ticked
	if t.Archived == "" && t.Archiving != "" {
		done, err := archiveDone(env, p.Change, t.Archiving)
		if err != nil {
			return res, err
		}
		if done {
			t.Archived = t.Archiving
			fmt.Fprintf(env.Out, "apply: the archive of %s as %s was done before the interruption\n", p.Change, t.Archived)
			if err := r.Record(engine.Event{Payload: engine.Archived{Name: t.Archived}}); err != nil {
				return res, err
			}
		}
	}
	if t.Archived == "" {
		// 0. The delta specs merged onto specs edited since the change
		// was written (or halted on what cannot merge), before the gate
		// checks the tree that will be archived.
		if err := mergeSpecsForward(ctx, env, r, p); err != nil {
			res.Phase = PhaseSpecs
			return res, err
		}
		// 1. The verify gate: only an unambiguous green passes.
		cmds := slices.Clone(p.Verify)
		if p.Reviewer != "" {
			cmds = append(cmds, p.Reviewer)
		}
		out, err := r.Verify(ctx, engine.RoleVerify, cmds)
		res.Verify = out
		if err != nil {
			return res, exitcode.Wrap(exitcode.Interrupted, err)
		}
		var red []string
		for _, o := range out {
			if !o.Passed {
				red = append(red, fmt.Sprintf("%q (exit %d; log %s)", o.Command, o.ExitCode, o.Log))
			}
		}
		if moved, err := movedUnderGate(ctx, r, out); err != nil {
			return res, err
		} else if len(red) == 0 && moved != "" {
			red = append(red, moved)
		}
		if len(red) > 0 {
			res.Phase = PhaseVerify
			res.Unticked = Unticked(env.Root, p.Change)
			reason := "verify failed: " + strings.Join(red, ", ")
			if err := r.Record(engine.Event{Payload: engine.Verified{Status: engine.GateFailed, Note: reason}}); err != nil {
				return res, err
			}
			msg := fmt.Sprintf("change %s: %s; nothing archived, nothing pushed, the change is left in %s", p.Change, reason, env.where())
			if len(res.Unticked) > 0 {
				msg += "; unticked tasks: " + strings.Join(res.Unticked, ", ")
			}
			return res, exitcode.New(exitcode.GateFailed, "%s. %s (passing receipts are reused)", msg, env.fixThen(p.Change))
		}
		if err := r.Record(engine.Event{Payload: engine.Verified{Status: engine.GatePassed, Note: strings.Join(cmds, "; ")}}); err != nil {
			return res, err
		}
		// 2. Tasks ticked by facts: a task whose files its worker changed,
		// the worker having reported done (and the gate green), is
		// ticked; any other unticked task blocks.
		ticked, open, err := tickByFacts(env, r, p)
		if err != nil {
			return res, err
		}
		if len(ticked) > 0 {
			res.Ticked = append(res.Ticked, ticked...)
			fmt.Fprintf(env.Out, "apply: ticked by facts (its worker reported done and changed a file it names, verify green): %s\n", strings.Join(ticked, ", "))
			if err := r.Record(engine.Event{Payload: engine.Ticked{Tasks: ticked}}); err != nil {
				return res, err
			}
		}
		if len(open) > 0 && !p.Yes {
			res.Phase, res.Unticked = PhaseTasks, open
			next := "finish them in @ and re-run, or re-run with --yes to archive anyway"
			if env.Member {
				// --yes confirmed the pipeline's set: a member never
				// archives with tasks open.
				next = fmt.Sprintf("a pipeline member does not archive with tasks open: finish them in %s, then resume the pipeline with `%s`", env.where(), env.commands(p.Change).Resume)
			}
			return res, exitcode.New(exitcode.NeedsChoice, "change %s: %s not done (%s): not archived; %s", p.Change, plural.Count(len(open), "task is", "tasks are"), strings.Join(open, ", "), next)
		}
		// 3. The native archive, into the same change.
		plan, err := env.Root.PlanArchive(p.Change, spec.ArchiveOptions{Yes: true})
		if err != nil {
			return res, fmt.Errorf("archive change %s: %w", p.Change, err)
		}
		if err := r.Record(engine.Event{Payload: engine.Archiving{Name: plan.ArchiveName}}); err != nil {
			return res, err
		}
		if err := plan.Apply(env.Journal); err != nil {
			return res, fmt.Errorf("archive change %s: %w", p.Change, err)
		}
		engine.CrashPoint("apply-archive-moved")
		t.Archived = plan.ArchiveName
		fmt.Fprintf(env.Out, "apply: archived %s as %s\n", p.Change, plan.ArchiveName)
		if err := r.Record(engine.Event{Payload: engine.Archived{Name: plan.ArchiveName}}); err != nil {
			return res, err
		}
		engine.CrashPoint("apply-archived")
	}
	res.ArchivedAs = t.Archived
	// 4. The bookmark on the one change (@).
	head, err := r.Backend.Head(ctx)
	if err != nil {
		return res, err
	}
	res.Commit = head
	if t.Bookmarked == "" {
		// A bookmark this run set is moved with @, never checked again.
		if err := CheckBookmark(ctx, env.Repo, p.Bookmark, head); err != nil {
			return res, err
		}
	}
	if err := env.Repo.BookmarkSet(ctx, p.Bookmark, "@", true); err != nil {
		return res, fmt.Errorf("set bookmark %s on @: %w", p.Bookmark, err)
	}
	if t.Bookmarked == "" {
		if err := r.Record(engine.Event{Payload: engine.Bookmarked{Bookmark: p.Bookmark, Commit: head}}); err != nil {
			return res, err
		}
	}
	if p.NoPush {
		res.Phase = PhaseUnpushed
		if res.PublishCommand, err = unpublished(env, r.Dir, p, t.Archived, res.Phase); err != nil {
			return res, err
		}
		return res, landed(ctx, env, r, p, res)
	}
	// 5. Push once, then the pull request (both through gh-specstack).
	pushed, err := forge.Publish(ctx, env.Repo.Root, p.Bookmark)
	if err != nil {
		return res, err
	}
	res.Pushed = pushed
	if pushed == string(gitx.Pushed) {
		fmt.Fprintf(env.Out, "apply: pushed %s to %s\n", p.Bookmark, gitx.Origin)
	}
	if t.Pushed == "" {
		if err := r.Record(engine.Event{Payload: engine.Pushed{Status: pushed, Commit: head}}); err != nil {
			return res, err
		}
	}
	engine.CrashPoint("apply-pushed")
	if p.NoPR {
		res.Phase = PhaseNoPR
		if res.PublishCommand, err = unpublished(env, r.Dir, p, t.Archived, res.Phase); err != nil {
			return res, err
		}
		return res, landed(ctx, env, r, p, res)
	}
	pr, err := openPR(ctx, env.Repo.Root, env.Root, p, t.Archived, r.State().Agent)
	if err != nil {
		return res, err
	}
	res.PR = pr
	fmt.Fprintf(env.Out, "apply: pull request #%d %s (%s)\n", pr.Number, pr.Action, pr.URL)
	if err := r.Record(engine.Event{Payload: engine.PROpened{Action: pr.Action, URL: pr.URL, Number: pr.Number}}); err != nil {
		return res, err
	}
	// 6. The tracker hook.
	if p.Tracker != "" && !t.Tracker {
		if err := runTracker(ctx, r, p, pr, env.commands(p.Change).Resume); err != nil {
			return res, err
		}
	}
	res.Phase = PhaseApplied
	return res, landed(ctx, env, r, p, res)
}

// movedUnderGate says how @ changed while the gate ran, "" when it did
// not (or no command ran): the receipts are bound to @ as it was when the
// gate began, and what is archived and pushed is @ as it is after, so a
// change in between (a gate command that rewrites files, a person
// editing @) would be archived with nobody's check.
func movedUnderGate(ctx context.Context, r *engine.Runner, out []engine.VerifyOutcome) (string, error) {
	if len(out) == 0 || out[0].Tree == "" {
		return "", nil
	}
	now, err := r.Backend.Head(ctx)
	if err != nil {
		return "", fmt.Errorf("verify: read @ after the gate: %w", err)
	}
	if now == out[0].Tree {
		return "", nil
	}
	return fmt.Sprintf("the working copy changed while the gate ran (@ %s when it began, %s now: a gate command rewrote files, or @ was edited meanwhile), so no gate checked what would be archived", record.ShortID(out[0].Tree), record.ShortID(now)), nil
}

// landed records the apply's end (res.Phase), then moves @ off the
// applied change (moveOff).
func landed(ctx context.Context, env *Env, r *engine.Runner, p *Plan, res *Result) error {
	if err := r.Record(engine.Event{Payload: engine.Applied{Status: res.Phase, Commit: res.Commit}}); err != nil {
		return err
	}
	id, err := moveOff(ctx, env, p.Bookmark)
	if err != nil {
		return fmt.Errorf("change %s is applied (%s), but @ could not move off it: %w; `jj new %s` starts the next change on top of it", p.Change, res.Phase, err, p.Bookmark)
	}
	res.WorkingCopy = id
	return nil
}

// moveOff leaves @, when it is the change bookmark points at, on a new
// empty change on top of it and returns the new change's ID: what the
// person edits next is not folded into the change that passed the gate
// and was (or is about to be) published. A pipeline member's workspace
// is the pipeline's, and @ there stays on the member's change; @ moved
// elsewhere while apply ran stays where it is. Both return "".
func moveOff(ctx context.Context, env *Env, bookmark string) (string, error) {
	if env.Member {
		return "", nil
	}
	at, err := env.Repo.Log(ctx, "@ & "+jjx.Bookmarked(bookmark))
	if err != nil || len(at) != 1 {
		return "", err
	}
	id, err := env.Repo.New(ctx, "", true, jjx.ID(at[0].CommitID))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(env.Out, "apply: @ is now a new empty change on %s (the applied change is left as verified)\n", bookmark)
	return id, nil
}

// archiveDone reports whether the archive of change as name, recorded as
// started, was done: an interrupted one in the journal is rolled forward
// first (the caller holds the lock the archive held); then the change's
// folder is gone and the archive folder is there.
func archiveDone(env *Env, change, name string) (bool, error) {
	if _, err := journal.Recover(env.Journal); err != nil {
		return false, fmt.Errorf("finish the interrupted archive of change %s (journal %s): %w", change, env.Journal, err)
	}
	if env.Root.CheckChange(change) == nil {
		return false, nil
	}
	fi, err := os.Lstat(filepath.Join(env.Root.ArchiveDir(), name))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("look for the archive of change %s: %w", change, err)
	}
	return fi.IsDir(), nil
}

// Unticked lists the change's unticked tasks ("1.2 Wire …").
func Unticked(r spec.Root, change string) []string {
	tf, _, err := r.Tasks(change)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range tf.Tasks {
		if !t.Checked {
			out = append(out, t.Text)
		}
	}
	return out
}

// tickByFacts ticks each unticked task the run holds evidence for: the
// worker given its group exited 0, reported done and was merged, and its
// change touched a file the task's text names (the worker's word alone
// is not a fact). It returns the ids ticked and the tasks still open
// ("1.2 Wire …"); those whose group's worker reported done but changed
// none of their files are said, with why, on env.Out.
func tickByFacts(env *Env, run *engine.Runner, p *Plan) (ticked, open []string, err error) {
	tf, _, err := env.Root.Tasks(p.Change)
	if err != nil {
		return nil, nil, err
	}
	st := run.State()
	changed := map[string][]string{} // group ("*": every group) → files its done worker changed
	for n, ts := range st.Tasks {
		if ts.Status != engine.StatusDone || !ts.Squashed {
			continue
		}
		groups := []string{"*"}
		if len(p.TaskGroups) > 0 {
			if n-1 >= len(p.TaskGroups) {
				continue
			}
			groups = p.TaskGroups[n-1]
		}
		for _, g := range groups {
			changed[g] = append(changed[g], ts.Files...)
		}
	}
	// Tasks name paths from the repository's root or, in a project in a
	// subfolder, from the project's.
	prefix, _ := RepoRel(env, env.Root.Dir)
	var unproven []string
	for _, t := range tf.Tasks {
		if t.Checked {
			continue
		}
		files, worked := changed[strings.TrimLeft(t.Group, "0")]
		if all, ok := changed["*"]; ok {
			files, worked = append(files, all...), true
		}
		if t.ID != "" && worked && touchesNamed(spec.TaskPaths(t.Text), files, prefix) {
			ticked = append(ticked, t.ID)
			continue
		}
		if worked {
			unproven = append(unproven, t.Text)
		}
		open = append(open, t.Text)
	}
	if len(unproven) > 0 {
		fmt.Fprintf(env.Out, "apply: not ticked (its worker reported done, but changed no file the task names): %s\n", strings.Join(unproven, "; "))
	}
	if len(ticked) > 0 {
		if _, err := env.Root.Tick(p.Change, ticked, true); err != nil {
			return nil, nil, fmt.Errorf("tick tasks %s of change %s: %w", strings.Join(ticked, ", "), p.Change, err)
		}
	}
	return ticked, open, nil
}

// touchesNamed reports whether a file of files (repository paths) is one
// that patterns name, from the repository's root or from prefix (the
// project's folder in it, "." or "" at the root).
func touchesNamed(patterns, files []string, prefix string) bool {
	for _, f := range files {
		rel, inProject := f, false
		if prefix != "" && prefix != "." {
			rel, inProject = strings.CutPrefix(f, prefix+"/")
		}
		for _, p := range patterns {
			if spec.PathNamed(p, f) || inProject && spec.PathNamed(p, rel) {
				return true
			}
		}
	}
	return false
}

// openPR creates the bookmark's pull request, or updates the open one,
// with the archived proposal.md as its body.
func openPR(ctx context.Context, dir string, r spec.Root, p *Plan, archived string, spent *agent.Usage) (*PRView, error) {
	body, err := r.ReadFile(prBodyFile(r, archived))
	if err != nil {
		return nil, fmt.Errorf("read the archived proposal for the pull request body: %w", err)
	}
	if spent != nil {
		body = fmt.Appendf(body, "\n---\nImplemented by %s.\n", spent)
	}
	pr := newPull(p)
	pr.Body = string(body)
	return forge.UpsertPR(ctx, dir, pr)
}

// newPull is the pull request apply opens for p, without its body.
func newPull(p *Plan) forge.NewPull {
	return forge.NewPull{Title: ImplementMessage(p.Change), Head: p.Bookmark, Base: p.PRBase}
}

// prBodyFile is the file the pull request's body is read from: the
// proposal, archived as archived.
func prBodyFile(r spec.Root, archived string) string {
	return filepath.Join(r.ArchiveDir(), archived, "proposal.md")
}

// PublishCommand is the command that publishes what an apply of p left
// at phase, as apply would have: at PhaseUnpushed (--no-push) the
// bookmark pushed once and, but with --no-pr, the pull request opened
// with its body read from bodyFile; at PhaseNoPR that pull request. ""
// at any other phase.
func PublishCommand(p *Plan, bodyFile, phase string) string {
	switch {
	case phase == PhaseUnpushed && p.NoPR:
		return forge.PushCommand(p.Bookmark)
	case phase == PhaseUnpushed || phase == PhaseNoPR:
		return forge.PRCommand(newPull(p), bodyFile)
	}
	return ""
}

// memberBodyFile is where a pipeline member that landed unpublished
// keeps its pull request's body (the archived proposal), in its ledger
// directory dir: the archive is in the member's bookmark, not in the
// files of @, and its workspace goes.
func memberBodyFile(dir string) string { return filepath.Join(engine.ArtifactsDir(dir), "pr-body.md") }

// needsBody reports whether p's publish at phase opens a pull request,
// whose body file it reads.
func needsBody(p *Plan, phase string) bool { return !(phase == PhaseUnpushed && p.NoPR) }

// MemberPublishCommand is the publish command (PublishCommand) of the
// pipeline member with ledger directory dir, left at phase; "" when it
// needs a body the member did not keep (a run recorded before members
// kept one): that command would fail.
func MemberPublishCommand(dir string, p *Plan, phase string) string {
	body := memberBodyFile(dir)
	if needsBody(p, phase) {
		if _, err := os.Stat(body); err != nil {
			return ""
		}
	}
	return PublishCommand(p, body, phase)
}

// unpublished is the publish command of an apply left at phase: read
// from the archive in the working copy for a single apply; a pipeline
// member (ledger directory dir) first copies the proposal to its ledger,
// which the pipeline's report names.
func unpublished(env *Env, dir string, p *Plan, archived, phase string) (string, error) {
	body := prBodyFile(env.Root, archived)
	if !env.Member {
		return PublishCommand(p, body, phase), nil
	}
	if needsBody(p, phase) {
		data, err := env.Root.ReadFile(body) // as openPR reads it: no link out
		if err == nil {
			err = os.MkdirAll(filepath.Dir(memberBodyFile(dir)), 0o755)
		}
		if err == nil {
			err = renameio.WriteFile(memberBodyFile(dir), data, 0o644)
		}
		if err != nil {
			return "", fmt.Errorf("keep the pull request's body for its publish: %w", err)
		}
	}
	return MemberPublishCommand(dir, p, phase), nil
}

// TrackerTimeout bounds the tracker hook.
const TrackerTimeout = 5 * time.Minute

// runTracker runs the configured tracker command in the repository with
// the change, bookmark and pull request in its environment
// (SPECSTACK_CHANGE, SPECSTACK_BOOKMARK, SPECSTACK_PR_URL): never spliced
// into its text.
func runTracker(ctx context.Context, r *engine.Runner, p *Plan, pr *PRView, rerun string) error {
	j := engine.Job{Command: p.Tracker, Dir: r.Backend.TargetDir(), Role: "tracker", Task: "all",
		Log: filepath.Join(engine.ArtifactsDir(r.Dir), "tracker.log"), Timeout: TrackerTimeout,
		Environment: []string{"SPECSTACK_CHANGE=" + p.Change, "SPECSTACK_BOOKMARK=" + p.Bookmark, "SPECSTACK_PR_URL=" + pr.URL}}
	res := engine.RunJob(ctx, j)
	status := engine.GatePassed
	if res.ExitCode != 0 || res.Err != nil {
		status = engine.GateFailed
	}
	if err := r.Record(engine.Event{Payload: engine.TrackerRan{Status: status, Command: p.Tracker, ExitCode: res.ExitCode}}); err != nil {
		return err
	}
	if status == engine.GateFailed {
		return exitcode.Wrap(exitcode.Failure, errors.Join(fmt.Errorf("tracker hook %q failed (exit %d; log %s): the PR is open; re-run `%s` to retry the hook", p.Tracker, res.ExitCode, j.Log, rerun), res.Err))
	}
	return nil
}
