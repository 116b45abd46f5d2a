package engine

import (
	"slices"
	"strings"
	"testing"
)

func TestDiffFiles(t *testing.T) {
	diff := "diff --git a/stray.txt b/stray.txt\nnew file mode 100644\n--- /dev/null\n+++ b/stray.txt\n@@ -0,0 +1 @@\n+stray\n" +
		"diff --git a/dir/a b.txt b/dir/a b.txt\n--- a/dir/a b.txt\n+++ b/dir/a b.txt\n"
	if got, want := diffFiles([]byte(diff)), []string{"stray.txt", "dir/a b.txt"}; !slices.Equal(got, want) {
		t.Errorf("diffFiles = %q, want %q", got, want)
	}
	if got := diffFiles(nil); got != nil {
		t.Errorf("diffFiles(nil) = %q, want none", got)
	}
}

func TestDeclaredBySibling(t *testing.T) {
	st := &State{Tasks: map[int]*TaskState{
		1: {Task: Task{Num: 1, Files: []string{"one.txt"}}, Workspace: "ws-1", Files: []string{"one.txt"}},
		2: {Task: Task{Num: 2, Files: []string{"two.txt"}}, Workspace: "ws-2", Files: []string{"two.txt", "one.txt", "stray.txt"}},
		3: {Task: Task{Num: 3, Files: []string{"three.txt", "one.txt"}}, Workspace: "ws-3", Files: []string{"one.txt"}},
	}}
	if got := declaredBySibling(st, []int{1, 2}, st.Tasks[1]); got != "" {
		t.Errorf("task 1 holds only its own file, got %q", got)
	}
	got := declaredBySibling(st, []int{1, 2}, st.Tasks[2])
	if !strings.Contains(got, "workspace ws-2 holds one.txt, which task 1 declared") || strings.Contains(got, "stray.txt") {
		t.Errorf("task 2 = %q, want one.txt named as task 1's (and no undeclared file)", got)
	}
	// A file the task declared itself is its own, whoever else did.
	if got := declaredBySibling(st, []int{1, 3}, st.Tasks[3]); got != "" {
		t.Errorf("task 3 declared one.txt too, got %q", got)
	}
}
