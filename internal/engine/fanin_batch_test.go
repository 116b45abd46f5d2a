package engine_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/jjx"
)

// TestBatchSquashTakenBack: two tasks whose recorded files are disjoint
// are squashed into @ together; task 2's change was rewritten after it
// was collected to touch task 1's file, so @ has a conflict. The squash
// is taken back and the tasks go one by one, smallest first: task 1 is
// squashed, task 2's conflict halts the run naming it. The squash is
// known by the operation ID the ledger recorded for it.
func TestBatchSquashTakenBack(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
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
		Binary: "jj-kaisen", Plan: "batch",
		Waves:  [][]int{{1, 2}},
		Briefs: map[int]string{1: "one\n", 2: "two\n"},
		Options: engine.Options{
			Worker:        `echo "task $SPECSTACK_TASK" > "file-$SPECSTACK_TASK.txt" && echo 'Status: DONE' > "$SPECSTACK_REPORT"`,
			SkipReview:    true,
			WorkspacesDir: filepath.Join(dir, "workspaces"),
		},
	}
	for i := 1; i <= 2; i++ {
		req.Tasks = append(req.Tasks, engine.Task{Num: i, Title: fmt.Sprintf("file %d", i), Files: []string{fmt.Sprintf("file-%d.txt", i)}})
	}
	res, err := engine.Reserve(filepath.Join(dir, "ledger"), false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := res.Start(ctx, repo, req, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, step := range []func() error{
		func() error { return r.Provision(ctx, 1) },
		func() error { return r.Dispatch(ctx, 1) },
		func() error { return r.Integrity(ctx, 1) },
		func() error { return r.Review(ctx, 1) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	// Task 2's change, rewritten after it was collected (as recorded it
	// touches file-2.txt only).
	ws2 := r.State().Tasks[2].Path
	write(t, ws2, "file-1.txt", "not task 1\n")
	run(t, ws2, "jj", "status")

	err = r.FanIn(ctx, 1)
	if exitcode.Of(err) != exitcode.Conflicts || !strings.Contains(err.Error(), "fan-in of task 2 left conflicts in @: file-1.txt") {
		t.Fatalf("fan-in: %v (exit %d); want the conflict of task 2 in file-1.txt (exit %d)", err, exitcode.Of(err), exitcode.Conflicts)
	}
	if !strings.Contains(out.String(), "taken back, squashing one by one") {
		t.Errorf("the run did not say it took the squash back:\n%s", out.String())
	}
	st := r.State()
	if !st.Tasks[1].Squashed || st.Tasks[1].Reason != "" || !slices.Equal(st.Tasks[2].Conflict, []string{"file-1.txt"}) {
		t.Errorf("after fan-in: task 1 squashed %v, task 2 conflict %v", st.Tasks[1].Squashed, st.Tasks[2].Conflict)
	}
	// Newest first: task 2's squash, task 1's, the restore that took the
	// wave's squash back, the wave's squash.
	got := strings.Split(run(t, root, "jj", "op", "log", "--no-graph", "-n", "4", "-T", `description.first_line() ++ "\n"`), "\n")
	want := []string{"squash commits into", "squash commits into", "restore to operation", "squash commits into"}
	if len(got) != len(want) {
		t.Fatalf("operation log: %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("operation log: %q; want %q", got, want)
			break
		}
	}
	// The ledger recorded the wave's squash by its operation's ID, which
	// is how it was known to take back.
	ids := strings.Split(run(t, root, "jj", "op", "log", "--no-graph", "-n", "4", "-T", `id ++ "\n"`), "\n")
	if op := st.SquashOps[1]; len(ids) != 4 || op != ids[3] {
		t.Errorf("the ledger's operation of wave 1's squash is %q; want the squash's, %q", op, ids[len(ids)-1])
	}
}
