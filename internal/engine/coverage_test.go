package engine

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestCoverageOutcomes(t *testing.T) {
	d := testDoc()
	d.Events = []Event{
		{Task: 1, Payload: Provisioned{Workspace: "ws1", Path: "/w/1"}},
		{Task: 2, Payload: Provisioned{Workspace: "ws2", Path: "/w/2"}},
		{Task: 3, Payload: Provisioned{Workspace: "ws3", Path: "/w/3"}},
		{Task: 1, Payload: Collected{Status: StatusDone, Changes: []string{"c1"}, Files: []string{"a"}}},
		{Task: 2, Payload: Collected{Status: StatusDone, Changes: []string{"c2"}}},
		{Task: 3, Payload: Collected{Status: StatusCrashed, Reason: "worker exited 3"}},
		{Task: 1, Payload: Tested{Status: GatePassed}},
		{Task: 1, Payload: PassedReview{}},
		{Task: 2, Payload: PassedReview{Status: ReviewSkipped}},
		{Task: 1, Payload: Released{}}, {Task: 2, Payload: Released{}},
		{Task: 1, Payload: Squashed{}}, {Task: 2, Payload: Squashed{}},
		{Payload: Gated{Status: GateNone}},
		{Payload: Completed{}},
	}
	c := BuildCoverage(d, "/art")
	var b strings.Builder
	if err := c.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"run complete: 1/3 tasks merged (1 empty) across 2 waves\n",
		`  task 1 "one": merged; review passed, tests passed` + "\n",
		`  task 2 "two": empty; review skipped, no test ran` + "\n",
		`  task 3 "three": failed — worker exited 3` + "\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if c.Merged != 1 || c.Empty != 1 || c.Waves[0].Tasks[1].Tests != TestNotRun || c.Waves[0].Tasks[1].Review != ReviewSkipped {
		t.Errorf("coverage: %+v", c)
	}
	err := c.notMergedError(KaisenCommands)
	if exitcode.Of(err) != exitcode.Halted {
		t.Fatalf("exit code %d, want %d: %v", exitcode.Of(err), exitcode.Halted, err)
	}
	if want := `run complete, but 1 of 3 tasks was not merged: task 3 "three" failed (worker exited 3); workspaces kept for inspection: task 3`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	if want := "(`jj kaisen status` shows where; `jj kaisen sweep --all` releases them)"; !strings.Contains(err.Error(), want) {
		t.Errorf("jj-kaisen's error %q lacks %q", err, want)
	}
	apply := Commands{Resume: "jj openspec apply c", Abort: "jj openspec apply --abort", Status: "jj openspec apply --status"}
	err = c.notMergedError(apply)
	if want := "(`jj openspec apply --status` shows where; `jj openspec apply --abort` releases them and undoes the run)"; !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "kaisen") {
		t.Errorf("apply's error %q lacks %q or names jj kaisen", err, want)
	}

	// Every task merged or empty: no error.
	d.Events = append(d.Events[:5:5], Event{Task: 1, Payload: Squashed{}}, Event{Task: 2, Payload: Squashed{}})
	d.Header.Tasks, d.Header.Waves = d.Header.Tasks[:2], [][]int{{1, 2}}
	if err := BuildCoverage(d, "/art").notMergedError(KaisenCommands); err != nil {
		t.Errorf("all merged or empty: %v", err)
	}
}

// TestCoverageAborted: after an abort nothing runs, so a task the abort
// cut short (its worker running, or never started) is "aborted", and
// one that had finished keeps its outcome; the run's phase is aborted
// whether or not a process holds its lock.
func TestCoverageAborted(t *testing.T) {
	d := testDoc()
	d.Events = []Event{
		{Task: 1, Payload: Provisioned{Workspace: "ws1", Path: "/w/1"}},
		{Task: 2, Payload: Provisioned{Workspace: "ws2", Path: "/w/2"}},
		{Task: 1, Wave: 1, Role: RoleImplementer, Payload: Dispatched{}},
		{Task: 2, Wave: 1, Role: RoleImplementer, Payload: Dispatched{}},
		{Task: 1, Payload: Collected{Status: StatusCrashed, Reason: "worker exited 3"}},
		{Task: 2, Payload: Collected{Status: StatusDone, Changes: []string{"c2"}, Files: []string{"b"}}},
		{Task: 2, Wave: 1, Payload: Squashed{}},
		{Payload: Aborted{Op: "op0"}},
	}
	c := BuildCoverage(d, "/art")
	c.Settle(t.TempDir(), KaisenCommands)
	// Task 2's merge was undone by the abort (the start operation
	// restored); task 3 never started.
	want := map[int]string{1: "failed", 2: "aborted", 3: "aborted"}
	for _, w := range c.Waves {
		for _, tc := range w.Tasks {
			if tc.Outcome != want[tc.Task] {
				t.Errorf("task %d: outcome %q, want %q", tc.Task, tc.Outcome, want[tc.Task])
			}
		}
	}
	var b strings.Builder
	if err := c.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"run abcd1234: aborted (0/3 tasks merged)\n",
		"wave 1 (aborted):\n",
		`  task 2 "two": aborted — merged into @, then undone by the abort` + "\n",
		"wave 2 (aborted):\n",
		`  task 3 "three": aborted` + "\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if c.Phase != "aborted" || len(c.Preserved) != 0 {
		t.Errorf("phase %q, preserved %v; want aborted, none", c.Phase, c.Preserved)
	}
}
