package engine_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/jjx"
)

// The jj processes a driver run of one wave starts (--skip-review, no
// test command), from Start to completion: per task, its `workspace add`,
// the one `jj log` that snapshots its workspace and collects it
// (integration is one squash for the whole wave) and the integrity
// check's second snapshot of it (what a sibling wrote there since its
// worker ended; not for the task whose worker ended last: 13 per run
// are measured against the 14 listed); per run, 14: the start's three
// reads (@, the workspace list, the operation), the integrity check's
// read of @ (its diff, and the operation log that names a worker's
// rewrite of history outside its workspace, only when @ is not the
// baseline's commit), the bulk forget, the membership query, what @ changed
// since the base (the disjointness check), the squash with a read of the
// operation log before and after it (the squash's own operation, by which
// it is taken back), the conflicts check, the wave summary's diff and two
// reads of @ (baseline, completion).
// Before the wave was squashed in one operation it was 3 per task. A
// hand-written script needs four per task (add, status, squash, forget).
const (
	maxJJPerTask = 3
	maxJJPerRun  = 14
	// maxJJRecheck is what checking a wave's recorded workspaces costs
	// (one `workspace list`, one `jj log` over their working copies).
	maxJJRecheck = 2
)

// TestJJCallsPerWave counts the jj processes of one-wave runs of 2 and 6
// tasks through the counting jj wrapper testenv puts on PATH (real jj
// behind it): the difference is what each task costs, the rest what the
// run costs. It fails when either grows past the number above.
func TestJJCallsPerWave(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	small, large := 2, 6
	c1 := jjCallsOfWave(t, small)
	c2 := jjCallsOfWave(t, large)
	perTask := float64(c2-c1) / float64(large-small)
	perRun := float64(c1) - perTask*float64(small)
	t.Logf("jj processes: %d tasks %d, %d tasks %d: %.2f per task, %.2f per run", small, c1, large, c2, perTask, perRun)
	if perTask > maxJJPerTask {
		t.Errorf("%.2f jj processes per task, want at most %d (%d for %d tasks, %d for %d)", perTask, maxJJPerTask, c1, small, c2, large)
	}
	if perRun > maxJJPerRun {
		t.Errorf("%.2f jj processes per run besides the tasks', want at most %d (%d for %d tasks, %d for %d)", perRun, maxJJPerRun, c1, small, c2, large)
	}
}

// jjCallsOfWave drives a fresh run of n tasks in one wave, each worker
// writing its own file, checks that every file reached @ without a
// conflict, and returns how many jj processes the run started.
func jjCallsOfWave(t *testing.T, n int) int {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	run(t, dir, "jj", "git", "init", "--no-colocate", root)
	write(t, root, "base.txt", tenLines)
	run(t, root, "jj", "describe", "-m", "work")
	repo, err := jjx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	req := engine.StartRequest{
		Binary: "jj-kaisen", Plan: "count",
		Waves:  [][]int{{}},
		Briefs: map[int]string{},
		Options: engine.Options{
			Worker:        `echo "task $SPECSTACK_TASK" > "file-$SPECSTACK_TASK.txt" && echo 'Status: DONE' > "$SPECSTACK_REPORT"`,
			SkipReview:    true,
			WorkspacesDir: filepath.Join(dir, "workspaces"),
		},
	}
	for i := 1; i <= n; i++ {
		req.Tasks = append(req.Tasks, engine.Task{Num: i, Title: fmt.Sprintf("file %d", i), Files: []string{fmt.Sprintf("file-%d.txt", i)}})
		req.Waves[0] = append(req.Waves[0], i)
		req.Briefs[i] = fmt.Sprintf("Write file-%d.txt.\n", i)
	}
	c0 := jjCommands(t)
	res, err := engine.Reserve(filepath.Join(dir, "ledger"), false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := res.Start(ctx, repo, req, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Provisioning again (step mode's second fan-out, a resume) checks
	// the recorded workspaces: two jj processes however many there are.
	if err := r.Provision(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c1 := jjCommands(t)
	if err := r.Provision(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c2 := jjCommands(t)
	if recheck := c2 - c1; recheck > maxJJRecheck {
		t.Errorf("checking the %d recorded workspaces of a wave again started %d jj processes, want at most %d", n, recheck, maxJJRecheck)
	}
	if err := r.Drive(ctx); err != nil {
		t.Fatalf("run of %d tasks: %v", n, err)
	}
	// What a run driven from the start starts: Drive checked the recorded
	// workspaces once more.
	calls := (c1 - c0) + (jjCommands(t) - c2) - (c2 - c1)
	files := run(t, root, "jj", "file", "list", "-r", "@")
	for i := 1; i <= n; i++ {
		if !strings.Contains(files, fmt.Sprintf("file-%d.txt", i)) {
			t.Fatalf("run of %d tasks: file-%d.txt is not in @ (files: %s)", n, i, files)
		}
	}
	if c := run(t, root, "jj", "log", "--no-graph", "-r", "conflicts()", "-T", "change_id"); c != "" {
		t.Fatalf("run of %d tasks: conflicted revisions %s", n, c)
	}
	return calls
}

// jjCommands reads how many jj commands the wrapper has run.
func jjCommands(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), "jj-commands"))
	if err != nil {
		t.Fatalf("read the jj wrapper's count: %v", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("read the jj wrapper's count: %v", err)
	}
	return n
}
