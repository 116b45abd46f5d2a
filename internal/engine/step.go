package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/plural"
)

// CollectWave collects every provisioned task of wave w that is not
// squashed, from its workspace and report (step mode: the worker was
// started by someone else).
func (r *Runner) CollectWave(ctx context.Context, w int) error {
	if err := r.trustRecorded(); err != nil {
		return err
	}
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	var unmade []string
	for _, n := range nums {
		if t := st.Tasks[n]; t.Workspace == "" && !t.Squashed && !t.Released {
			unmade = append(unmade, strconv.Itoa(n))
		}
	}
	if len(unmade) > 0 {
		// Nothing to collect is not a collection: say what comes first.
		return exitcode.New(exitcode.Usage, "collect --wave %d: %s no workspace yet: run `fan-out --wave %d` first", w, plural.Word(len(unmade), "task "+strings.Join(unmade, ", ")+" has", "tasks "+strings.Join(unmade, ", ")+" have"), w)
	}
	for _, n := range nums {
		t := st.Tasks[n]
		if t.Squashed || t.Released {
			continue
		}
		if err := r.collectAndRecord(ctx, t, nil); err != nil {
			return err
		}
	}
	return nil
}

// CheckReviewed fails unless every collected, integrable task of wave w
// has a verdict (or the run skips review).
func (r *Runner) CheckReviewed(w int) error {
	if r.Doc.Header.Options.SkipReview {
		return nil
	}
	nums, err := r.WaveTasks(w)
	if err != nil {
		return err
	}
	st := r.State()
	var missing []string
	for _, n := range nums {
		t := st.Tasks[n]
		if !t.Collected {
			if !t.Squashed {
				missing = append(missing, fmt.Sprintf("task %d is not collected (run `collect --wave %d`)", n, w))
			}
			continue
		}
		if !t.Failed() && !t.Reviewed && !t.Squashed {
			missing = append(missing, fmt.Sprintf("task %d has no review verdict (run `review record --task %d --passed` or `--findings FILE`)", n, n))
		}
	}
	if len(missing) > 0 {
		return exitcode.New(exitcode.Usage, "wave %d is not ready for fan-in: %s", w, strings.Join(missing, "; "))
	}
	return nil
}

// Verdict is what `review record` recorded.
type Verdict struct {
	Task      int    `json:"task"`
	Passed    bool   `json:"passed"`
	Critical  int    `json:"critical"`
	Important int    `json:"important"`
	Other     int    `json:"other"`
	Findings  string `json:"findings,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	FixFrom   string `json:"fix_from,omitempty"`
	Delta     string `json:"delta,omitempty"` // the command showing the fix delta
	// Job is the fixer job the driver would run for a failed review:
	// start it as fan-out's jobs are started.
	Job *JobSpec `json:"job,omitempty"`
}

// RecordReview records a verdict on task n from a person or an agent.
// Findings with critical or important entries fail the task and record
// the commit its fix starts from.
func (r *Runner) RecordReview(ctx context.Context, n int, passed bool, findingsFile string) (*Verdict, error) {
	st := r.State()
	t, ok := st.Tasks[n]
	if !ok {
		return nil, exitcode.New(exitcode.Usage, "no task %d in the run", n)
	}
	if !t.Collected {
		return nil, exitcode.New(exitcode.Usage, "task %d is not collected yet: run `collect --wave %d` first", n, t.Wave)
	}
	if t.Squashed {
		return nil, exitcode.New(exitcode.Usage, "task %d is already squashed into @", n)
	}
	v := &Verdict{Task: n, Passed: passed, Workspace: t.Path}
	if passed {
		return v, r.record(Event{Task: n, Wave: t.Wave, Payload: PassedReview{Reason: "recorded"}})
	}
	fs, err := ReadFindings(findingsFile)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	for i := range fs {
		fs[i].Task = n
	}
	v.Critical, v.Important, v.Other = Count(fs)
	v.Findings = r.FindingsPath(n)
	if err := WriteFindings(v.Findings, fs); err != nil {
		return nil, err
	}
	if v.Critical+v.Important == 0 {
		v.Passed = true
		return v, r.record(Event{Task: n, Wave: t.Wave, Payload: PassedReview{Other: v.Other, Findings: v.Findings, Reason: "recorded: no blocking findings"}})
	}
	head, err := r.workspaceHead(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("task %d: read its change: %w", n, err)
	}
	v.FixFrom = head
	v.Delta = fmt.Sprintf("jj diff --from %s --to %s", head, t.Change)
	job := r.job(t.Wave, t, RoleFixer).Spec()
	v.Job = &job
	return v, r.record(
		Event{Task: n, Wave: t.Wave, Payload: FailedReview{Critical: v.Critical, Important: v.Important, Other: v.Other, Findings: v.Findings}},
		Event{Task: n, Wave: t.Wave, Payload: Fixing{Commit: head, Attempt: t.Fixes}},
	)
}
