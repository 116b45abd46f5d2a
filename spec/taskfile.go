package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/spec/internal/jstext"
	"github.com/specstack/specstack/spec/tasksmd"
)

// TaskLine is one checkbox line of a tasks file: see tasksmd.TaskLine.
type TaskLine = tasksmd.TaskLine

// TaskProgress is a count of done and total tasks: see tasksmd.TaskProgress.
type TaskProgress = tasksmd.TaskProgress

// Task is one checkbox line of a tasks file with its place in it.
type Task struct {
	TaskLine
	Line  int    `json:"line"`  // 1-based
	Group string `json:"group"` // number of the enclosing "## N." group, or ""
}

// TaskGroup is a "## " section of a tasks file and the tasks under it.
type TaskGroup struct {
	Number string `json:"number"` // "1" for "## 1. Export API", "" when unnumbered
	Title  string `json:"title"`
	Line   int    `json:"line"`
	Tasks  []Task `json:"tasks"`
}

// TasksFile is a parsed tasks.md. Tasks holds every task line (the lines
// OpenSpec counts), Groups the "## " sections in order; tasks above the
// first group are in Tasks only.
type TasksFile struct {
	Groups []TaskGroup `json:"groups"`
	Tasks  []Task      `json:"tasks"`
}

// ParseTasks reads a tasks file. Every task line counts, as in OpenSpec,
// but group headings inside code fences do not open groups.
func ParseTasks(content string) TasksFile {
	var tf TasksFile
	lines := strings.Split(content, "\n")
	mask := osFenceMask(lines)
	cur := -1
	for i, line := range lines {
		if !mask[i] {
			if num, title, ok := tasksmd.GroupHeading(line); ok {
				tf.Groups = append(tf.Groups, TaskGroup{Number: num, Title: title, Line: i + 1})
				cur = len(tf.Groups) - 1
				continue
			}
		}
		tl, ok := tasksmd.ParseTaskLine(line)
		if !ok {
			continue
		}
		t := Task{TaskLine: tl, Line: i + 1}
		if cur >= 0 {
			t.Group = tf.Groups[cur].Number
			tf.Groups[cur].Tasks = append(tf.Groups[cur].Tasks, t)
		}
		tf.Tasks = append(tf.Tasks, t)
	}
	return tf
}

// Progress counts the file's tasks.
func (tf TasksFile) Progress() TaskProgress {
	var p TaskProgress
	for _, t := range tf.Tasks {
		p.Total++
		if t.Checked {
			p.Completed++
		}
	}
	return p
}

// ErrTaskNotFound reports a task id that no task line carries.
var ErrTaskNotFound = errors.New("task not found")

// SetChecked ticks (checked) or clears the tasks with the given ids,
// changing only their box markers; every other byte is kept. It fails,
// changing nothing, when an id matches no task line, more than one, or a
// line whose box cannot be edited.
func SetChecked(content string, ids []string, checked bool) (string, error) {
	lines := strings.Split(content, "\n")
	byID := map[string][]int{}
	for i, l := range lines {
		if t, ok := tasksmd.ParseTaskLine(l); ok && t.ID != "" {
			byID[t.ID] = append(byID[t.ID], i)
		}
	}
	for _, id := range ids {
		at := byID[id]
		switch len(at) {
		case 0:
			known := make([]string, 0, len(byID))
			for _, l := range lines {
				if t, ok := tasksmd.ParseTaskLine(l); ok && t.ID != "" {
					known = append(known, t.ID)
				}
			}
			return content, fmt.Errorf("task %q: %w (task ids here: %s)", id, ErrTaskNotFound, strings.Join(known, ", "))
		case 1:
		default:
			return content, fmt.Errorf("task %q is on %d lines (%s); fix the duplicate id first", id, len(at), joinLines(at))
		}
		out, ok := tasksmd.SetTaskChecked(lines[at[0]], checked)
		if !ok {
			return content, fmt.Errorf("task %q on line %d: its box cannot be edited without changing how OpenSpec reads the line", id, at[0]+1)
		}
		lines[at[0]] = out
	}
	return strings.Join(lines, "\n"), nil
}

func joinLines(at []int) string {
	s := make([]string, len(at))
	for i, a := range at {
		s[i] = fmt.Sprintf("line %d", a+1)
	}
	return strings.Join(s, ", ")
}

type numbering struct {
	line int
	id   string // set when the task carries an id (for duplicate checks)
	msg  string // group mismatch, or ""
}

// numberingIssues walks the tasks under numbered "## N." groups as
// OpenSpec's findTaskNumberingIssues does.
func numberingIssues(content string) []numbering {
	lines := strings.Split(content, "\n")
	anyNumbered := false
	for _, l := range lines {
		if n, _, ok := tasksmd.GroupHeading(l); ok && n != "" {
			anyNumbered = true
			break
		}
	}
	if !anyNumbered {
		return nil
	}
	var out []numbering
	group, inGroup := "", false
	for i, l := range lines {
		if n, _, ok := tasksmd.GroupHeading(l); ok {
			group, inGroup = n, n != ""
		}
		if !inGroup {
			continue
		}
		t, ok := tasksmd.ParseTaskLine(l)
		if !ok || t.ID == "" {
			continue
		}
		tg := strings.SplitN(t.ID, ".", 2)[0]
		e := numbering{line: i + 1, id: t.ID}
		if strings.TrimLeft(tg, "0") != strings.TrimLeft(group, "0") && !(allZero(tg) && allZero(group)) {
			e.msg = fmt.Sprintf("Task \"%s\" is under group %s, but its leading number points to group %s. Move it to group %s or renumber it.", t.ID, group, tg, tg)
		}
		out = append(out, e)
	}
	return out
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

// firstListItemLine is the 1-based line of the first list item in the
// rendered content (outside fences, comments, front matter and indented
// code), or 0.
func firstListItemLine(content string) int {
	lines := strings.Split(content, "\n")
	i := skipFrontMatter(lines)
	fence := commonMarkFence.Scanner()
	inComment := false
	for ; i < len(lines); i++ {
		line := lines[i]
		if inComment {
			if strings.Contains(line, "-->") {
				inComment = false
			}
			continue
		}
		if fence.In(line) {
			continue
		}
		if t := jsTrimStart(line); strings.HasPrefix(t, "<!--") {
			at := strings.Index(line, "<!--")
			if !strings.Contains(line[at+4:], "-->") {
				inComment = true
			}
			continue
		}
		if isListItem(line) && indentColumns(line) < 4 {
			return i + 1
		}
	}
	return 0
}

func jsTrimStart(s string) string { return s[jstext.SkipSpace(s, 0):] }

// isListItem matches /^\s*(?:[-*+]|\d{1,9}[.)])\s+\S/.
func isListItem(line string) bool {
	_, i, ok := tasksmd.ListMarker.Marker(line)
	if !ok {
		return false
	}
	k := jstext.SkipSpace(line, i)
	return k > i && k < len(line)
}

func indentColumns(line string) int {
	col := 0
	for _, c := range line {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col
		}
	}
	return col
}

func isFrontMatterFence(s string) bool {
	return strings.HasPrefix(s, "---") && jstext.IsAllSpace(s[3:])
}

func skipFrontMatter(lines []string) int {
	if len(lines) == 0 || !isFrontMatterFence(jstext.TrimEnd(strings.TrimPrefix(lines[0], "\ufeff"))) {
		return 0
	}
	for i := 1; i < len(lines); i++ {
		if isFrontMatterFence(jstext.TrimEnd(lines[i])) {
			return i + 1
		}
	}
	return 0
}
