package engine

import (
	"slices"
	"strings"
	"testing"
)

func TestFilesAndLines(t *testing.T) {
	changes := []Change{
		{Files: []FileLines{{Path: "a.txt", Added: 2}, {Path: "b.txt", Removed: 1}}},
		{Files: []FileLines{{Path: "a.txt", Added: 1, Removed: 1}}},
		{Empty: true},
	}
	files, lines := filesAndLines(changes)
	if want := []string{"a.txt", "b.txt"}; !slices.Equal(files, want) || lines != 5 {
		t.Errorf("filesAndLines = %q, %d; want %q, 5", files, lines, want)
	}
	if files, lines := filesAndLines(nil); files != nil || lines != 0 {
		t.Errorf("filesAndLines(nil) = %q, %d; want none", files, lines)
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
