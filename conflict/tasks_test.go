package conflict_test

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

const tasksFile = `## 1. Group
- [ ] 1.1 First
- [ ] 1.2 Second
  - [ ] 1.2.1 Nested
* [ ] 1.3 Starred
- [ ] untitled task

## 2. Other
- [x] 2.1 Done already
`

// edit applies replacements to tasksFile.
func edit(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(tasksFile) }

func TestMergeTasks(t *testing.T) {
	tests := []struct {
		name        string
		left, right string
		want        string // "" means: expect conflicts
		reason      string // part of the first conflict's reason
		ticks       string
	}{
		{name: "adjacent ticks", left: edit("[ ] 1.1", "[x] 1.1"), right: edit("[ ] 1.2 ", "[x] 1.2 "),
			want: edit("[ ] 1.1", "[x] 1.1", "[ ] 1.2 ", "[x] 1.2 "), ticks: "1.1 1.2"},
		{name: "same tick both sides", left: edit("[ ] 1.3", "[x] 1.3"), right: edit("[ ] 1.3", "[X] 1.3"),
			want: edit("[ ] 1.3", "[x] 1.3"), ticks: "1.3"},
		{name: "nested and unnumbered", left: edit("[ ] 1.2.1", "[x] 1.2.1"), right: edit("[ ] untitled", "[x] untitled"),
			want: edit("[ ] 1.2.1", "[x] 1.2.1", "[ ] untitled", "[x] untitled"), ticks: "1.2.1 untitled task"},
		{name: "untick on one side", left: edit("[x] 2.1", "[ ] 2.1"), right: edit("[ ] 1.1", "[x] 1.1"),
			want: edit("[x] 2.1", "[ ] 2.1", "[ ] 1.1", "[x] 1.1"), ticks: "1.1"},
		{name: "tick and unrelated text edit", left: edit("[ ] 1.1", "[x] 1.1"), right: edit("Starred", "Starred, renamed"),
			want: edit("[ ] 1.1", "[x] 1.1", "Starred", "Starred, renamed"), ticks: "1.1"},
		{name: "tick next to a new task", left: edit("[ ] 1.1", "[x] 1.1"), right: edit("* [ ] 1.3 Starred\n", "* [ ] 1.3 Starred\n- [ ] 1.4 New\n"),
			want: edit("[ ] 1.1", "[x] 1.1", "* [ ] 1.3 Starred\n", "* [ ] 1.3 Starred\n- [ ] 1.4 New\n"), ticks: "1.1"},
		{name: "text changed differently", left: edit("1.1 First", "1.1 First, left"), right: edit("1.1 First", "1.1 First, right"),
			reason: "task 1.1: its text changed differently on both sides"},
		{name: "text changed and ticked", left: edit("1.1 First", "1.1 First, reworded"), right: edit("[ ] 1.1", "[x] 1.1"),
			reason: "task 1.1: its text changed on one side and its box on the other"},
		{name: "deleted and ticked", left: edit("- [ ] 1.2 Second\n", ""), right: edit("[ ] 1.2 ", "[x] 1.2 "),
			reason: "task 1.2: right changed it and left removed or rewrote it"},
		{name: "ticked and deleted", left: edit("[ ] 1.2 ", "[x] 1.2 "), right: edit("- [ ] 1.2 Second\n", ""),
			reason: "task 1.2: left changed it and right removed or rewrote it"},
		{name: "unnumbered text edited and ticked", left: edit("untitled task", "untitled task!"), right: edit("[ ] untitled", "[x] untitled"),
			reason: "untitled task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := conflict.MergeTasks(tasksFile, tt.left, tt.right, conflict.TasksOptions{})
			if tt.want != "" {
				if r.Text != tt.want || len(r.Conflicts) > 0 {
					t.Errorf("MergeTasks =\n%s(conflicts %v), want\n%s", r.Text, r.Conflicts, tt.want)
				}
				if got := strings.Join(r.Ticks, " "); got != tt.ticks {
					t.Errorf("ticks = %q, want %q", got, tt.ticks)
				}
				return
			}
			if len(r.Conflicts) == 0 || !strings.Contains(r.Conflicts[0].Reason, tt.reason) {
				t.Fatalf("conflicts = %v, want one with %q; text:\n%s", r.Conflicts, tt.reason, r.Text)
			}
			// The conflict keeps every version: nothing is dropped.
			f := conflict.ParseString(r.Text)
			bases, sides, ok := f.Versions()
			if !ok || bases[0] != tasksFile || sides[0] != tt.left || sides[1] != tt.right {
				t.Errorf("the conflict does not hold the three versions:\n%s", r.Text)
			}
			if line := conflict.SplitLines(r.Text)[r.Conflicts[0].Line-1]; !strings.HasPrefix(line, "<<<<<<<") {
				t.Errorf("conflict line %d is %q, not an opening marker", r.Conflicts[0].Line, line)
			}
		})
	}
}

func TestMergeTasksCRLF(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	r := conflict.MergeTasks(crlf(tasksFile), crlf(edit("[ ] 1.1", "[x] 1.1")), crlf(edit("[ ] 1.2 ", "[x] 1.2 ")), conflict.TasksOptions{})
	if want := crlf(edit("[ ] 1.1", "[x] 1.1", "[ ] 1.2 ", "[x] 1.2 ")); r.Text != want {
		t.Errorf("MergeTasks = %q, want %q", r.Text, want)
	}
}
