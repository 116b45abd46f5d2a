package engine

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestCoverageOutcomes(t *testing.T) {
	d := testDoc()
	d.Events = []Event{
		{Kind: EvProvisioned, Task: 1, Workspace: "ws1", Path: "/w/1"},
		{Kind: EvProvisioned, Task: 2, Workspace: "ws2", Path: "/w/2"},
		{Kind: EvProvisioned, Task: 3, Workspace: "ws3", Path: "/w/3"},
		{Kind: EvCollected, Task: 1, Status: StatusDone, Changes: []string{"c1"}, Files: []string{"a"}},
		{Kind: EvCollected, Task: 2, Status: StatusDone, Changes: []string{"c2"}},
		{Kind: EvCollected, Task: 3, Status: StatusCrashed, Reason: "worker exited 3"},
		{Kind: EvTests, Task: 1, Status: GatePassed},
		{Kind: EvReviewPassed, Task: 1},
		{Kind: EvReviewPassed, Task: 2, Status: ReviewSkipped},
		{Kind: EvReleased, Task: 1}, {Kind: EvReleased, Task: 2},
		{Kind: EvSquashed, Task: 1}, {Kind: EvSquashed, Task: 2},
		{Kind: EvGate, Status: GateNone},
		{Kind: EvComplete},
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
	d.Events = append(d.Events[:5:5], Event{Kind: EvSquashed, Task: 1}, Event{Kind: EvSquashed, Task: 2})
	d.Header.Tasks, d.Header.Waves = d.Header.Tasks[:2], [][]int{{1, 2}}
	if err := BuildCoverage(d, "/art").notMergedError(KaisenCommands); err != nil {
		t.Errorf("all merged or empty: %v", err)
	}
}
