package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/jjx"
)

// LinesPerReviewer is about how many changed lines one reviewer gets.
const LinesPerReviewer = 300

// Review runs the wave's gates on every collected task that has no
// passing verdict: the covering test commands inside the task's
// workspace, then the reviewer command in batches, then the fix loop (one
// fixer per task with all its findings, the re-review scoped to exactly
// the fix delta, the integrity check re-run) for at most MaxFixes
// attempts, after which the run halts for a person.
func (r *Runner) Review(ctx context.Context, w int) error {
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	var fresh, fixing []*TaskState
	for _, n := range nums {
		t := st.Tasks[n]
		if !t.Collected || t.Failed() || t.Approved || t.Squashed {
			continue
		}
		if t.Reviewed {
			fixing = append(fixing, t)
		} else {
			fresh = append(fresh, t)
		}
	}
	if r.Doc.Header.Options.SkipReview {
		// One write for the wave: a kill before it records the same
		// verdicts again on resume.
		var events []Event
		for _, t := range append(fresh, fixing...) {
			events = append(events, Event{Task: t.Num, Wave: w, Payload: PassedReview{Status: ReviewSkipped, Reason: "review skipped (--skip-review)"}})
		}
		if len(events) == 0 {
			return nil
		}
		return r.record(events...)
	}
	// The engine's one review/fix loop: the wave's fresh tasks are
	// gated, every task whose review failed is a blocking finding, its
	// fixer runs, and the fixed tasks are gated again on their fix delta.
	gate, from := fresh, map[int]string(nil)
	g := Gate{MaxRounds: math.MaxInt, // the fixer's attempts are counted per task, below
		Review: func(ctx context.Context, _ int, _ []Rejection, _ []Finding) ([]Finding, error) {
			if len(gate) > 0 {
				if err := r.gateTasks(ctx, w, gate, from); err != nil {
					return nil, err
				}
			}
			return r.failedReviews(nums), nil
		},
		Fix: func(ctx context.Context, _ int, blocking []Finding) (map[string]FixVerdict, error) {
			st := r.State()
			var exhausted []string
			var next []*TaskState
			for _, f := range blocking {
				t := st.Tasks[f.Task]
				if t.Fixes >= r.maxFixes() {
					exhausted = append(exhausted, fmt.Sprintf("task %d (findings %s, workspace %s)", t.Num, t.Findings, t.Path))
				} else {
					next = append(next, t)
				}
			}
			if len(exhausted) > 0 {
				then := fmt.Sprintf("`%s`", r.commands().Resume)
				if rr := r.commands().ReviewRecord; rr != "" {
					then = fmt.Sprintf("`%s --task N --passed` and `%s`", rr, r.commands().Resume)
				}
				return nil, r.halt(ctx, exitcode.New(exitcode.Halted,
					"review findings remain after %d fix attempts: %s; fix them in the workspace, then %s",
					r.maxFixes(), strings.Join(exhausted, "; "), then))
			}
			var err error
			gate, from, err = r.fix(ctx, w, next)
			return nil, err // a kaisen fixer answers with its commits, not verdicts
		},
		Refresh: func(context.Context, int) error { return nil },
		Record:  func(GateStep) error { return nil }, // the verdicts are recorded per task by gateTasks
	}
	_, err = g.Run(ctx)
	return err
}

// failedReviews is one blocking finding per task of nums whose recorded
// review failed and is not yet fixed: the ledger, not a findings file
// that could be gone, says what blocks.
func (r *Runner) failedReviews(nums []int) []Finding {
	st := r.State()
	var fs []Finding
	for _, n := range nums {
		if t := st.Tasks[n]; t.Collected && !t.Failed() && t.Reviewed && !t.Approved && !t.Squashed {
			fs = append(fs, Finding{ID: fmt.Sprintf("task-%d", n), Task: n, Severity: SeverityCritical,
				Message: "review failed (findings " + t.Findings + ")"})
		}
	}
	return fs
}

// fix runs one fixer per task and re-checks their integrity; it returns
// the tasks to gate again and the commit each fix started from (the
// re-review is scoped to the fix delta).
func (r *Runner) fix(ctx context.Context, w int, ts []*TaskState) ([]*TaskState, map[int]string, error) {
	if err := r.Budget(ctx, fmt.Sprintf("wave %d's fixers", w)); err != nil {
		return nil, nil, err
	}
	from := map[int]string{}
	for _, t := range ts {
		head, err := r.workspaceHead(ctx, t)
		if err != nil {
			return nil, nil, fmt.Errorf("task %d: read the change before fixing: %w", t.Num, err)
		}
		from[t.Num] = head
		if err := r.record(Event{Task: t.Num, Wave: w, Payload: Fixing{Commit: head, Attempt: t.Fixes + 1}}); err != nil {
			return nil, nil, err
		}
		r.logf("task %d: fixing from %s (attempt %d)", t.Num, short(head), t.Fixes+1)
	}
	var mu sync.Mutex
	var errs []error
	Parallel(ctx, ts, r.Doc.Header.Options.MaxParallel, func(ctx context.Context, t *TaskState) {
		if err := r.record(Event{Task: t.Num, Wave: w, Role: RoleFixer, Payload: Dispatched{}}); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			return
		}
		var res Result
		if r.Executor != nil {
			res = r.runRemote(ctx, r.State().Tasks[t.Num], r.job(w, t, RoleFixer))
		} else {
			res = r.runTracked(ctx, taskLabel(t.Num), r.job(w, t, RoleFixer))
		}
		if ctx.Err() != nil {
			return
		}
		if err := r.collectAndRecord(ctx, t, &res); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	if ctx.Err() != nil {
		return nil, nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	if len(errs) > 0 {
		return nil, nil, errs[0]
	}
	if err := r.Integrity(ctx, w); err != nil {
		return nil, nil, err
	}
	st := r.State()
	var again []*TaskState
	for _, t := range ts {
		if nt := st.Tasks[t.Num]; !nt.Failed() {
			again = append(again, nt)
		}
	}
	return again, from, nil
}

// gateTasks runs the tests and the reviewers on ts and records a verdict
// per task. from, when set, scopes each task's review to the delta since
// that commit (a fix).
func (r *Runner) gateTasks(ctx context.Context, w int, ts []*TaskState, from map[int]string) error {
	findings := map[int][]Finding{}
	surface := false
	for _, t := range ts {
		fs, covered, err := r.testTask(ctx, w, t)
		if err != nil {
			return err
		}
		surface = surface || covered
		findings[t.Num] = append(findings[t.Num], fs...)
	}
	if !surface && from == nil {
		if err := r.record(Event{Wave: w, Payload: NoTestSurface{Reason: "no test command covers this wave's files: only review checked it"}}); err != nil {
			return err
		}
	}
	if r.reviewer() != "" {
		rf, err := r.runReviewers(ctx, w, ts, from)
		if err != nil {
			return err
		}
		for n, fs := range rf {
			findings[n] = append(findings[n], fs...)
		}
	}
	for _, t := range ts {
		fs := findings[t.Num]
		c, i, o := Count(fs)
		path := r.FindingsPath(t.Num)
		if err := WriteFindings(path, fs); err != nil {
			return err
		}
		if c+i == 0 {
			passed := PassedReview{Other: o, Findings: path}
			verdict := "review passed"
			if r.reviewer() == "" {
				passed.Status, passed.Reason = ReviewSkipped, "no reviewer command configured: tests only"
				verdict = "no reviewer command: review skipped"
			}
			if err := r.record(Event{Task: t.Num, Wave: w, Payload: passed}); err != nil {
				return err
			}
			r.logf("task %d: %s; %s", t.Num, verdict, testsPhrase(r.State().Tasks[t.Num].Tests))
			continue
		}
		if err := r.record(Event{Task: t.Num, Wave: w, Payload: FailedReview{Critical: c, Important: i, Other: o, Findings: path}}); err != nil {
			return err
		}
		r.logf("task %d: review failed: %dc,%di (%s)", t.Num, c, i, path)
	}
	return nil
}

// testCommands returns the commands that cover files: the test map's
// entries whose glob matches one of them, or the full test command when
// there is no map.
func (r *Runner) testCommands(files []string) []string {
	m := r.Doc.Header.Options.TestMap
	if len(m) == 0 {
		if c := r.testCmd(); c != "" && len(files) > 0 {
			return []string{c}
		}
		return nil
	}
	globs := make([]string, 0, len(m))
	for g := range m {
		globs = append(globs, g)
	}
	slices.Sort(globs)
	var cmds []string
	for _, g := range globs {
		for _, f := range files {
			if ok, _ := doublestar.Match(g, f); ok {
				if !slices.Contains(cmds, m[g]) {
					cmds = append(cmds, m[g])
				}
				break
			}
		}
	}
	return cmds
}

// testTask runs the covering test commands inside t's workspace; a
// failure becomes a critical finding.
func (r *Runner) testTask(ctx context.Context, w int, t *TaskState) ([]Finding, bool, error) {
	cmds := r.testCommands(t.Files)
	if len(cmds) == 0 {
		return nil, false, r.record(Event{Task: t.Num, Wave: w, Payload: Tested{Status: TestNoSurface}})
	}
	// The tree the tests run on; unreadable, they run without reuse
	// (an empty head matches no receipt).
	head, err := r.workspaceHead(ctx, t)
	if err != nil {
		head = ""
	}
	var fs []Finding
	status := GatePassed
	for _, c := range cmds {
		log := r.art(fmt.Sprintf("task-%d-test.log", t.Num))
		res, err := r.runGate(ctx, w, t.Num, "test", r.testJob(c, t.Path, fmt.Sprint(t.Num), log), head)
		if err != nil {
			return nil, true, err
		}
		if ctx.Err() != nil {
			return nil, true, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
		}
		if CannotStart(res.ExitCode) {
			return nil, true, r.cannotStartError(ctx, c, t.Path, log, res.ExitCode)
		}
		if res.ExitCode != 0 || res.Err != nil {
			status = GateFailed
			fs = append(fs, Finding{Task: t.Num, Severity: SeverityCritical,
				Message: fmt.Sprintf("test command %q failed in the task's workspace (exit %d); log %s", c, res.ExitCode, log)})
		}
	}
	return fs, true, r.record(Event{Task: t.Num, Wave: w, Payload: Tested{Status: status, Commands: strings.Join(cmds, "; ")}})
}

// runReviewers splits ts into batches of about LinesPerReviewer changed
// lines and runs the reviewer command on each, in parallel. Each reviewer
// gets a brief listing the tasks' briefs, reports and changes, and the
// diff to review (the whole change, or the fix delta) in SPECSTACK_DIFF.
func (r *Runner) runReviewers(ctx context.Context, w int, ts []*TaskState, from map[int]string) (map[int][]Finding, error) {
	batches := batch(ts, LinesPerReviewer)
	res := map[int][]Finding{}
	var mu sync.Mutex
	var errs []error
	idx := make([]int, len(batches))
	for i := range idx {
		idx[i] = i
	}
	Parallel(ctx, idx, r.Doc.Header.Options.MaxParallel, func(ctx context.Context, b int) {
		fs, err := r.review(ctx, w, b+1, batches[b], from)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		for n, f := range fs {
			res[n] = append(res[n], f...)
		}
	})
	if ctx.Err() != nil {
		return nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return res, nil
}

// batch splits tasks, in order, into groups of about per changed lines
// each (a task is never split).
func batch(ts []*TaskState, per int) [][]*TaskState {
	var batches [][]*TaskState
	lines := 0
	for _, t := range ts {
		if len(batches) == 0 || lines >= per {
			batches = append(batches, nil)
			lines = 0
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], t)
		lines += t.Lines
	}
	return batches
}

func (r *Runner) review(ctx context.Context, w, b int, ts []*TaskState, from map[int]string) (map[int][]Finding, error) {
	attempt := 0
	for _, t := range ts {
		attempt = max(attempt, t.Fixes)
	}
	stem := fmt.Sprintf("review-%d-%d", w, b)
	if from != nil {
		stem = fmt.Sprintf("review-%d-%d-fix%d", w, b, attempt)
	}
	var brief, diff strings.Builder
	fmt.Fprintf(&brief, "# Review of wave %d, batch %d\n\n", w, b)
	if from != nil {
		brief.WriteString("This is a re-review of fixes: judge the fix delta in SPECSTACK_DIFF against the earlier findings, not the whole task again.\n\n")
	}
	var nums []string
	for _, t := range ts {
		nums = append(nums, fmt.Sprint(t.Num))
		fmt.Fprintf(&brief, "## Task %d: %s\n- brief: %s\n- report: %s\n- change: %s\n- files: %s\n", t.Num, t.Title,
			r.BriefPath(t.Num), r.ReportPath(t.Num), t.Change, strings.Join(t.Files, ", "))
		diffOf := func() ([]byte, error) { return r.Backend.ChangesDiff(ctx, t.Changes) }
		if f := from[t.Num]; f != "" {
			diffOf = func() ([]byte, error) { return r.Backend.DiffRange(ctx, f, t.Change) }
			fmt.Fprintf(&brief, "- fix delta: jj diff --from %s --to %s\n- earlier findings: %s\n", f, t.Change, r.FindingsPath(t.Num))
		} else {
			fmt.Fprintf(&brief, "- diff: jj diff -r '%s'\n", jjx.Union(t.Changes...))
		}
		if len(t.Changes) == 0 && from[t.Num] == "" {
			brief.WriteString("\n")
			continue
		}
		out, err := diffOf()
		if err != nil {
			return nil, fmt.Errorf("diff for review of task %d: %w", t.Num, err)
		}
		diff.Write(out)
		brief.WriteString("\n")
	}
	others, err := r.otherBriefs(w, ts)
	if err != nil {
		return nil, err
	}
	if others != "" {
		brief.WriteString("## The wave's other tasks (their briefs, for context)\n" + others + "\n")
	}
	brief.WriteString("Write findings as a JSON array of {\"task\", \"severity\" (critical|important|suggestion|cannot-verify), \"file\", \"line\", \"message\"} to SPECSTACK_FINDINGS.\n")
	job := r.reviewJob(ts[0].Path, nums, stem)
	briefPath, diffPath, findingsPath := job.Brief, job.Diff, job.Findings
	if err := os.WriteFile(briefPath, []byte(brief.String()), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(diffPath, []byte(diff.String()), 0o644); err != nil {
		return nil, err
	}
	os.Remove(findingsPath)
	if err := r.Budget(ctx, fmt.Sprintf("wave %d's reviewer", w)); err != nil {
		return nil, err
	}
	if err := r.record(Event{Wave: w, Role: RoleReviewer, Payload: Dispatched{Reason: "tasks " + strings.Join(nums, ",")}}); err != nil {
		return nil, err
	}
	label := plural.Word(len(nums), "task ", "tasks ") + plural.List(nums)
	res := r.runTracked(ctx, label, job)
	if ctx.Err() != nil {
		return nil, exitcode.Wrap(exitcode.Interrupted, ctx.Err())
	}
	// The reviewer's receipt: what it judged is exactly the diff it was
	// given (a batch spans several workspaces), so that is its identity.
	// Judgement is never reused.
	diffSum := sha256.Sum256([]byte(diff.String()))
	rc := ReceiptRecorded{Command: job.Command, ExitCode: res.ExitCode, Digest: res.Digest,
		Tree: "diff-sha256:" + hex.EncodeToString(diffSum[:]), Agent: res.Agent}
	for _, n := range res.Notes {
		r.logf("reviewer for %s: %s", label, n)
	}
	if res.Err != nil && rc.ExitCode == 0 {
		rc.ExitCode = -1
	}
	if err := r.record(Event{Wave: w, Role: RoleReviewer, Payload: rc}); err != nil {
		return nil, err
	}
	if res.ExitCode != 0 || res.Err != nil {
		why := ""
		if res.Agent != nil && res.Err != nil {
			why = fmt.Sprintf(" (%v)", res.Err)
		}
		return nil, r.halt(ctx, exitcode.New(exitcode.Halted, "reviewer for wave %d (tasks %s) exited %d%s: no review happened; see %s, then `%s`",
			w, strings.Join(nums, ","), res.ExitCode, why, r.art(stem+".log"), r.commands().Resume))
	}
	fs, confidence, err := ReadReview(findingsPath)
	if err != nil {
		return nil, r.halt(ctx, exitcode.Wrap(exitcode.Halted, err))
	}
	if err := r.confidenceGate(ctx, w, nums, confidence, findingsPath); err != nil {
		return nil, err
	}
	out := map[int][]Finding{}
	for _, f := range fs {
		for _, n := range owners(f, ts) {
			f.Task = n
			out[n] = append(out[n], f)
		}
	}
	return out, nil
}

// otherBriefs lists the briefs of wave w's tasks outside ts: every
// reviewer sees the whole wave's intent as ground truth.
func (r *Runner) otherBriefs(w int, ts []*TaskState) (string, error) {
	nums, err := r.WaveTasks(w)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range nums {
		if !slices.ContainsFunc(ts, func(t *TaskState) bool { return t.Num == n }) {
			fmt.Fprintf(&b, "- task %d: %s\n", n, r.BriefPath(n))
		}
	}
	return b.String(), nil
}

// owners decides which tasks a finding is about: the one it names, else
// those whose files include its file, else every task of the batch.
func owners(f Finding, ts []*TaskState) []int {
	for _, t := range ts {
		if f.Task == t.Num {
			return []int{t.Num}
		}
	}
	var res []int
	if f.File != "" {
		for _, t := range ts {
			if slices.Contains(t.Files, filepath.ToSlash(f.File)) {
				res = append(res, t.Num)
			}
		}
	}
	if len(res) == 0 {
		for _, t := range ts {
			res = append(res, t.Num)
		}
	}
	return res
}

// confidenceGate blocks a review whose reviewer reported a confidence
// below the run's min-confidence, unless the run was given an override
// reason, which is recorded.
func (r *Runner) confidenceGate(ctx context.Context, w int, nums []string, confidence *int, findings string) error {
	min := r.Doc.Header.Options.MinConfidence
	if min <= 0 || confidence == nil || *confidence >= min {
		return nil
	}
	what := fmt.Sprintf("the reviewer of wave %d (tasks %s) reported confidence %d, below min-confidence %d", w, strings.Join(nums, ","), *confidence, min)
	if r.ConfidenceOverride != "" {
		r.logf("%s: passed by override: %s", what, r.ConfidenceOverride)
		return r.record(Event{Wave: w, Role: RoleReviewer, Payload: ConfidenceOverridden{Findings: findings, Reason: fmt.Sprintf("%s; overridden: %s", what, r.ConfidenceOverride)}})
	}
	if co := r.commands().ConfidenceOverride; co != "" {
		return r.halt(ctx, exitcode.New(exitcode.Halted, "%s: a person must judge it (findings %s); then `%s \"REASON\"` to pass it anyway, recording why", what, findings, co))
	}
	return r.halt(ctx, exitcode.New(exitcode.Halted, "%s: a person must judge it (findings %s); then `%s` to undo the run", what, findings, r.commands().Abort))
}
