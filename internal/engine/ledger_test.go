package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/ledger"
)

func testDoc() *Doc {
	return ledger.New[Header, Event](Header{
		RunID: "abcd1234", StartOp: "op0", Plan: "plan.md", BaselineCommit: "base0",
		Tasks: []Task{{Num: 1, Title: "one", Files: []string{"a"}}, {Num: 2, Title: "two", Files: []string{"b"}}, {Num: 3, Title: "three", Files: []string{"a"}}},
		Waves: [][]int{{1, 2}, {3}},
	})
}

// TestFoldSquashUnchecked: a wave's batch squash is unchecked (a killed
// fan-in left @ unchecked after it) until a task of that wave is recorded
// squashed; a later batch squash of the wave is unchecked again.
func TestFoldSquashUnchecked(t *testing.T) {
	d := testDoc()
	d.Events = []Event{
		{Task: 1, Wave: 1, Payload: Squashing{}},
		{Task: 2, Wave: 1, Payload: Squashing{}},
		{Wave: 1, Payload: SquashedTogether{Op: "op1"}},
	}
	if s := Fold(d); s.SquashUnchecked[1] != "op1" || s.SquashOps[1] != "op1" {
		t.Errorf("after the squash: unchecked %v, ops %v; want op1 for both", s.SquashUnchecked, s.SquashOps)
	}
	d.Events = append(d.Events, Event{Task: 1, Wave: 1, Payload: Squashed{}})
	if s := Fold(d); s.SquashUnchecked[1] != "" || s.SquashOps[1] != "op1" {
		t.Errorf("after task 1's record: unchecked %v, ops %v; want none unchecked, op1 recorded", s.SquashUnchecked, s.SquashOps)
	}
	d.Events = append(d.Events, Event{Wave: 1, Payload: SquashedTogether{Op: "op2"}})
	if s := Fold(d); s.SquashUnchecked[1] != "op2" || s.SquashOps[1] != "op2" {
		t.Errorf("after a second squash: unchecked %v, ops %v; want op2 for both", s.SquashUnchecked, s.SquashOps)
	}
}

func TestFold(t *testing.T) {
	d := testDoc()
	d.Events = []Event{
		{Task: 1, Payload: Provisioned{Workspace: "ws1", Path: "/w/1", Base: []string{"p"}}},
		{Task: 2, Payload: Provisioned{Workspace: "ws2", Path: "/w/2"}},
		{Task: 1, Role: RoleImplementer, Payload: Dispatched{}},
		{Task: 2, Role: RoleImplementer, Payload: Dispatched{}},
		{Task: 1, Payload: Collected{Status: StatusDone, Change: "c1", Changes: []string{"c1"}, Files: []string{"a"}, Lines: 4}},
		{Task: 2, Payload: Collected{Status: StatusBlocked, Reason: "stuck"}},
		{Wave: 1, Role: RoleReviewer, Payload: Dispatched{}}, // wave-level: no task
		{Task: 1, Payload: FailedReview{Findings: "f1"}},
		{Task: 1, Payload: Fixing{Commit: "k1", Attempt: 1}},
		{Task: 1, Role: RoleFixer, Payload: Dispatched{}},
		{Task: 1, Payload: Collected{Status: StatusDone, Change: "c1", Changes: []string{"c1"}, Files: []string{"a"}, Lines: 5}},
		{Task: 1, Payload: PassedReview{}},
		{Task: 1, Payload: Released{}},
		{Task: 1, Payload: Squashing{}},
		{Task: 1, Payload: Squashed{}},
		{Wave: 1, Payload: Baselined{Commit: "base1"}},
		{Wave: 1, Payload: FannedIn{}},
		{Payload: Halted{Reason: "stop"}},
		{Task: 99, Payload: Collected{}}, // unknown task: ignored
	}
	s := Fold(d)
	t1, t2, t3 := s.Tasks[1], s.Tasks[2], s.Tasks[3]
	if t1.Wave != 1 || t3.Wave != 2 {
		t.Errorf("waves: %d, %d", t1.Wave, t3.Wave)
	}
	if !t1.Squashed || t1.Squashing || !t1.Released || !t1.Approved || t1.Fixes != 1 || t1.FixFrom != "k1" || t1.Dispatched != 2 || t1.Lines != 5 || t1.Failed() {
		t.Errorf("task 1: %+v", t1)
	}
	if !t2.Failed() || t2.Reason != "stuck" || t2.Approved {
		t.Errorf("task 2: %+v", t2)
	}
	if t3.Workspace != "" || t3.Collected {
		t.Errorf("task 3: %+v", t3)
	}
	if !s.FannedIn[1] || s.FannedIn[2] || s.BaselineCommit != "base1" || s.Halted != "stop" || s.Finished() {
		t.Errorf("state: %+v", s)
	}
	d.Events = append(d.Events, Event{Payload: Resumed{}}, Event{Payload: Aborted{Op: "op0"}})
	s = Fold(d)
	if s.Halted != "" || !s.Aborted || s.AbortedOp != "op0" || !s.Finished() {
		t.Errorf("after resume and abort: %+v", s)
	}
}

func TestFailed(t *testing.T) {
	tests := []struct {
		st   TaskState
		want bool
	}{
		{TaskState{}, false}, // not collected yet
		{TaskState{Collected: true, Status: StatusDone}, false},
		{TaskState{Collected: true, Status: StatusConcerns}, false},
		{TaskState{Collected: true, Status: StatusDone, Leak: true}, true},
		{TaskState{Collected: true, Status: StatusCrashed}, true},
		{TaskState{Collected: true, Status: StatusNeedsContext}, true},
		{TaskState{Collected: true, Status: StatusDivergent}, true},
		{TaskState{Collected: true, Status: StatusNoChange}, true},
	}
	for _, tt := range tests {
		if got := tt.st.Failed(); got != tt.want {
			t.Errorf("%+v: Failed = %v, want %v", tt.st, got, tt.want)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(nil, dir, testDoc(), nil)
	if err := r.record(Event{Task: 1, Payload: Provisioned{Workspace: "kaisen-default-x-task-1", Path: "/w/kaisen-default-x-task-1", Base: []string{"x", "y"}}}, Event{Wave: 1, Payload: FannedIn{}}); err != nil {
		t.Fatal(err)
	}
	d, ok, err := Load(dir)
	if err != nil || !ok {
		t.Fatalf("Load: %v %v", ok, err)
	}
	if len(d.Events) != 2 || d.Events[0].At.IsZero() || !reflect.DeepEqual(d.Events[0].Payload.(Provisioned).Base, []string{"x", "y"}) || d.Header.Waves[1][0] != 3 {
		t.Errorf("round trip: %+v", d)
	}
	if _, ok, _ := Load(filepath.Join(dir, "nowhere")); ok {
		t.Error("Load of an empty directory found a run")
	}
}

// TestTrustRecorded: a ledger naming a task workspace this run would not
// make (the orchestrating workspace, another name) or putting it at a
// folder of another name is damaged for the verbs that work in it:
// resume would forget the person's workspace or run a worker anywhere.
// (It still loads: abort undoes such a run.)
func TestTrustRecorded(t *testing.T) {
	for _, tc := range []struct {
		ws, path, want string
	}{
		{"kaisen-default-x-task-1", "/w/kaisen-default-x-task-1", ""},
		{"default", "/w/default", "not a name this run gives it"},
		{"kaisen-default-x-task-2", "/w/kaisen-default-x-task-2", "not a name this run gives it"},
		{"kaisen-default-x-task-1", "/home/me/project", "not a folder of that name"},
		{"kaisen-default-x-task-1", "w/kaisen-default-x-task-1", "not a folder of that name"},
	} {
		dir := t.TempDir()
		d := testDoc()
		d.Header.Workspace = "default"
		r := newRunner(nil, dir, d, nil)
		if err := r.record(Event{Task: 1, Payload: Provisioned{Workspace: tc.ws, Path: tc.path}}); err != nil {
			t.Fatal(err)
		}
		d, ok, err := Load(dir)
		if err != nil || !ok {
			t.Fatalf("Load: %v, %v", ok, err)
		}
		err = newRunner(nil, dir, d, nil).trustRecorded()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s at %s: %v, want %q", tc.ws, tc.path, err, tc.want)
		}
	}
}

func TestOrder(t *testing.T) {
	mk := func(n, files, lines int) *TaskState {
		return &TaskState{Task: Task{Num: n}, Files: make([]string, files), Lines: lines}
	}
	tests := []struct {
		name  string
		merge []int
		want  []int
	}{
		{"smallest diff first", nil, []int{4, 3, 1, 2}},
		{"explicit order", []int{2, 1}, []int{2, 1, 4, 3}},
	}
	for _, tt := range tests {
		d := testDoc()
		d.Header.Options.MergeOrder = tt.merge
		r := newRunner(nil, t.TempDir(), d, nil)
		ts := []*TaskState{mk(1, 2, 10), mk(2, 2, 30), mk(3, 1, 50), mk(4, 1, 5)}
		r.order(ts)
		var got []int
		for _, t := range ts {
			got = append(got, t.Num)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: order = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTestCommands(t *testing.T) {
	tests := []struct {
		name  string
		test  string
		m     map[string]string
		files []string
		want  []string
	}{
		{"full command covers everything", "make test", nil, []string{"x"}, []string{"make test"}},
		{"no files, no command", "make test", nil, nil, nil},
		{"nothing configured", "", nil, []string{"x"}, nil},
		{"map by glob", "make test", map[string]string{"src/**": "go test", "web/**/*.ts": "npm test", "docs/*": "lint"},
			[]string{"src/a/b.go", "web/x/y.ts"}, []string{"go test", "npm test"}},
		{"map, no match", "make test", map[string]string{"src/**": "go test"}, []string{"README.md"}, nil},
		{"same command once", "", map[string]string{"a/**": "t", "b/**": "t"}, []string{"a/1", "b/2"}, []string{"t"}},
	}
	for _, tt := range tests {
		d := testDoc()
		d.Header.Options.Test, d.Header.Options.TestMap = tt.test, tt.m
		r := newRunner(nil, t.TempDir(), d, nil)
		if got := r.testCommands(tt.files); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParallelBound(t *testing.T) {
	var running, peak atomic.Int32
	items := make([]int, 12)
	Parallel(t.Context(), items, 3, func(_ context.Context, _ int) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
	})
	if p := peak.Load(); p > 3 || p < 1 {
		t.Errorf("peak parallelism %d, want 1..3", p)
	}
}

func TestFoldCheckpoint(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   string
	}{
		{"start", nil, "base0"},
		{"after a fan-in", []Event{{Payload: Baselined{Commit: "b1"}}, {Wave: 1, Payload: FannedIn{}}}, "b1"},
		{"halted", []Event{{Payload: Baselined{Commit: "b1"}}, {Payload: Halted{Commit: "h1"}}}, "h1"},
		{"halted without a commit", []Event{{Payload: Baselined{Commit: "b1"}}, {Payload: Halted{}}}, "b1"},
		{"complete", []Event{{Payload: Halted{Commit: "h1"}}, {Payload: Baselined{Commit: "b2"}}, {Payload: Completed{Commit: "c1"}}}, "c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testDoc()
			d.Events = tt.events
			s := Fold(d)
			if s.Checkpoint != tt.want {
				t.Errorf("checkpoint %q, want %q", s.Checkpoint, tt.want)
			}
			if s.BaselineCommit == "h1" || s.BaselineCommit == "c1" {
				t.Errorf("a halt or completion moved the integrity baseline to %q", s.BaselineCommit)
			}
		})
	}
}

// TestPassingReceipt: a receipt is reused only for the same role, command
// and tree, when it passed, and never from a reuse record.
func TestPassingReceipt(t *testing.T) {
	s := &State{Receipts: []Receipt{
		{Role: RoleGate, Command: "make test", Tree: "t1", ExitCode: 0, Digest: "d1"},
		{Role: RoleGate, Command: "make test", Tree: "t2", ExitCode: 1, Digest: "d2"},
		{Role: RoleGate, Command: "make test", Tree: "t3", ExitCode: 0, Digest: "d3", Reused: true},
	}}
	tests := []struct {
		role, command, tree string
		want                string // digest of the reused receipt, "" for none
	}{
		{RoleGate, "make test", "t1", "d1"},
		{RoleGate, "make test", "t9", ""}, // another tree
		{RoleGate, "make lint", "t1", ""}, // another command
		{"test", "make test", "t1", ""},   // another role
		{RoleGate, "make test", "t2", ""}, // it failed
		{RoleGate, "make test", "t3", ""}, // only a reuse record
	}
	for _, tt := range tests {
		rc, ok := s.passingReceipt(tt.role, tt.command, tt.tree)
		if got := map[bool]string{true: rc.Digest}[ok]; got != tt.want {
			t.Errorf("passingReceipt(%s, %s, %s) = %q, want %q", tt.role, tt.command, tt.tree, got, tt.want)
		}
	}
}

// TestRecordTogether records from many goroutines at once: each call
// returns only when its event is in the ledger on disk, and no event is
// lost or doubled.
func TestRecordTogether(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(nil, dir, testDoc(), nil)
	const n = 24
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		go func() {
			err := r.recordTogether(Event{Task: i, Payload: Collected{Status: StatusDone}})
			if err == nil {
				d, _, lerr := Load(dir)
				if lerr != nil {
					err = lerr
				} else if !slices.ContainsFunc(d.Events, func(e Event) bool { return e.Task == i }) {
					err = fmt.Errorf("task %d: recordTogether returned before its event was on disk", i)
				}
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	d, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, e := range d.Events {
		seen[e.Task]++
	}
	for i := 1; i <= n; i++ {
		if seen[i] != 1 {
			t.Errorf("task %d recorded %d times, want once", i, seen[i])
		}
	}
	if len(d.Events) != n {
		t.Errorf("%d events in the ledger, want %d", len(d.Events), n)
	}
}

// A task workspace's name is one folder name under the workspaces folder
// whatever the orchestrating workspace is called (jj allows "a/../b",
// spaces, anything) or the ledger says.
func TestWorkspaceNameSafe(t *testing.T) {
	d := testDoc()
	d.Header.Binary = "jj-kaisen"
	for ws, want := range map[string]string{
		"default":         "kaisen-default-abcd1234-task-3",
		"feature_x.2":     "kaisen-feature_x.2-abcd1234-task-3",
		"x/../../y z":     "kaisen-x-..-..-y-z-abcd1234-task-3",
		"sp;$(id)":        "kaisen-sp---id--abcd1234-task-3",
		"開発":              "kaisen----abcd1234-task-3",
		"../../etc":       "kaisen-..-..-etc-abcd1234-task-3",
		"tab\there\n\x00": "kaisen-tab-here---abcd1234-task-3",
	} {
		d.Header.Workspace = ws
		r := &Runner{Doc: d}
		got := r.WorkspaceName(3)
		if got != want {
			t.Errorf("workspace %q: task workspace %q, want %q", ws, got, want)
		}
		if filepath.Base(got) != got || strings.ContainsAny(got, "/\\\x00") {
			t.Errorf("workspace %q: task workspace %q is not one folder name", ws, got)
		}
	}
}
