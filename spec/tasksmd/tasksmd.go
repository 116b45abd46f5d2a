// Package tasksmd is OpenSpec 1.13's grammar for the lines of a tasks.md:
// checkbox task lines (with their bullets, numbering and task ids), their
// progress count, and the "## N." group headings. Package spec reads whole
// tasks files with it, and package conflict merges them with it, without
// needing the rest of spec.
package tasksmd

import (
	"strings"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/mdline"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// TaskLine is one checkbox line of a tasks file, as OpenSpec 1.13 reads it
// (its TASK_LINE_PATTERN in utils/task-progress.js):
//
//	^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)
//
// where \s is JavaScript's whitespace class. Every line matching it counts
// towards progress, wherever it sits (code fences included), because that
// is what `openspec list` and `openspec archive` count.
type TaskLine struct {
	Indent  string `json:"-"`       // whitespace before the list marker
	Bullet  byte   `json:"-"`       // '-', '*' or '+'; for an ordered item its delimiter, '.' or ')'
	Number  string `json:"-"`       // the digits of an ordered item ("3" in "3. [ ] ..."), "" otherwise
	Checked bool   `json:"checked"` // the box holds 'x' or 'X': the only marks OpenSpec counts as done
	// Mark is what the box holds: ' ' for an empty or blank box ("[ ]",
	// "[]", "[  ]"), else its one marker character. OpenSpec accepts any
	// single non-space character ("[~]", "[-]") and counts it as not done.
	Mark rune   `json:"-"`
	ID   string `json:"id,omitempty"` // the task id that opens Text ("1.2", "2.3a"), or ""
	Text string `json:"text"`         // everything after the box, trimmed like OpenSpec's description
}

// ParseTaskLine reads line (without its '\n'; a trailing '\r' is allowed)
// as a checkbox line. ok is false when OpenSpec would not count it.
func ParseTaskLine(line string) (TaskLine, bool) {
	t, _, ok := parseTaskLine(line)
	return t, ok
}

// ListMarker is OpenSpec's list item marker, (?:[-*+]|\d{1,9}[.)]) after
// JavaScript whitespace, as its task and list item patterns read it.
var ListMarker = mdline.List{Space: jstext.IsSpace, MaxDigits: 9}

// boxSpan is where a box's inside lies in its line: line[start:end] is the
// text between '[' and ']', and mark is the offset of the marker or -1.
type boxSpan struct {
	start, end, mark int
}

func parseTaskLine(line string) (TaskLine, boxSpan, bool) {
	var t TaskLine
	ind, i, ok := ListMarker.Marker(line)
	if !ok {
		return TaskLine{}, boxSpan{}, false
	}
	t.Indent = line[:ind]
	t.Bullet = line[i-1]
	if i-ind > 1 {
		t.Number = line[ind : i-1]
	}
	i = jstext.SkipSpace(line, i)
	if i >= len(line) || line[i] != '[' {
		return TaskLine{}, boxSpan{}, false
	}
	i++
	span := boxSpan{start: i, mark: -1}
	// First alternative: \s* marker? \s* ] not followed by ( or [.
	// Second: \s+ ] (a blank box), which may be followed by anything.
	j := jstext.SkipSpace(line, i)
	blank := j > i
	k := j
	if k < len(line) && line[k] != ']' {
		r, size := jstext.DecodeBMP(line[k:])
		if r >= 0 && !jstext.IsSpace(r) {
			span.mark = k
			t.Mark = r
			k += size
		}
	}
	k = jstext.SkipSpace(line, k)
	if k >= len(line) || line[k] != ']' {
		return TaskLine{}, boxSpan{}, false
	}
	span.end = k
	k++
	followedByLink := k < len(line) && (line[k] == '(' || line[k] == '[')
	if followedByLink && (span.mark >= 0 || !blank) {
		// The first alternative fails on the look-ahead; the second needs
		// a blank box. (A box with a marker cannot be blank.)
		return TaskLine{}, boxSpan{}, false
	}
	if span.mark < 0 {
		t.Mark = ' '
	}
	t.Checked = t.Mark == 'x' || t.Mark == 'X'
	k = jstext.SkipSpace(line, k)
	t.Text = jstext.Trim(line[k:jstext.LineEnd(line, k)])
	t.ID = TaskID(t.Text)
	return t, span, true
}

// SetTaskChecked returns line with its box ticked (checked) or cleared,
// changing only the box's marker byte(s). It returns line unchanged and
// true when the box is already in that state, and false when line is not a
// task line or the edit would stop OpenSpec reading it as one (a blank box
// followed by '(' or '[', like "- [ ](x)").
func SetTaskChecked(line string, checked bool) (string, bool) {
	t, span, ok := parseTaskLine(line)
	if !ok {
		return line, false
	}
	if t.Checked == checked {
		return line, true
	}
	var out string
	switch {
	case !checked:
		// A checked box has a marker: blank it, keeping the box's width.
		_, size := utf8.DecodeRuneInString(line[span.mark:])
		out = line[:span.mark] + " " + line[span.mark+size:]
	case span.mark >= 0:
		_, size := utf8.DecodeRuneInString(line[span.mark:])
		out = line[:span.mark] + "x" + line[span.mark+size:]
	case span.end > span.start:
		// A blank box: the first whitespace character becomes the mark.
		_, size := utf8.DecodeRuneInString(line[span.start:])
		out = line[:span.start] + "x" + line[span.start+size:]
	default:
		out = line[:span.start] + "x" + line[span.start:]
	}
	if nt, ok := ParseTaskLine(out); !ok || nt.Checked != checked {
		return line, false
	}
	return out, true
}

// TaskID returns the task id that opens text, as OpenSpec's TASK_ID
// pattern reads it: ^(\d+(?:\.\d+)+(?:[A-Za-z]+)?)(?=\s|$). "1.2", "1.2.3"
// and "4.1b" are ids; "1", "1.2." and "1.2:" are not.
func TaskID(text string) string {
	i := 0
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	if i == 0 {
		return ""
	}
	parts := 0
	for i+1 < len(text) && text[i] == '.' && isDigit(text[i+1]) {
		i++
		for i < len(text) && isDigit(text[i]) {
			i++
		}
		parts++
	}
	if parts == 0 {
		return ""
	}
	for i < len(text) && isASCIILetter(text[i]) {
		i++
	}
	if i < len(text) {
		r, _ := utf8.DecodeRuneInString(text[i:])
		if !jstext.IsSpace(r) {
			return ""
		}
	}
	return text[:i]
}

// TaskProgress is the count `openspec list --json` reports as
// completedTasks/totalTasks.
type TaskProgress struct {
	Completed int `json:"completed"`
	Total     int `json:"total"`
}

// CountTasks counts the task lines of content exactly as OpenSpec does:
// every line (split on '\n') that ParseTaskLine accepts.
func CountTasks(content string) TaskProgress {
	var p TaskProgress
	for line := range strings.SplitSeq(content, "\n") {
		if t, ok := ParseTaskLine(line); ok {
			p.Total++
			if t.Checked {
				p.Completed++
			}
		}
	}
	return p
}

// Add returns the sum of two progress counts.
func (p TaskProgress) Add(q TaskProgress) TaskProgress {
	return TaskProgress{Completed: p.Completed + q.Completed, Total: p.Total + q.Total}
}

// String renders p as OpenSpec's list does: "No tasks", "✓ Complete" or
// "2/5 tasks".
func (p TaskProgress) String() string {
	switch {
	case p.Total == 0:
		return "No tasks"
	case p.Completed == p.Total:
		return "✓ Complete"
	}
	return itoa(p.Completed) + "/" + itoa(p.Total) + " tasks"
}

// GroupHeading reads line as a level-two heading, OpenSpec's
// LEVEL_TWO_HEADING (^ {0,3}##(?!#)(?:[ \t]+|[ \t]*\r?$)). number is the
// group number of a numbered heading ("## 3. Docs" → "3"), per
// NUMBERED_GROUP_HEADING (^ {0,3}##[ \t]+(\d+)\.(?:[ \t]|\r?$)), else "".
// title is the heading's text, trimmed, without the number.
func GroupHeading(line string) (number, title string, ok bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if !strings.HasPrefix(line[i:], "##") {
		return "", "", false
	}
	i += 2
	rest := line[i:]
	if strings.HasPrefix(rest, "#") {
		return "", "", false
	}
	j := 0
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	if j == 0 && rest != "" && rest != "\r" {
		return "", "", false
	}
	body := rest[j:]
	title = strings.TrimRight(body, " \t\r")
	if j == 0 {
		return "", title, true
	}
	d := 0
	for d < len(body) && isDigit(body[d]) {
		d++
	}
	if d > 0 && d < len(body) && body[d] == '.' {
		after := body[d+1:]
		if after == "" || after == "\r" || after[0] == ' ' || after[0] == '\t' {
			return body[:d], jstext.Trim(after), true
		}
	}
	return "", jstext.Trim(body), true
}

func isDigit(b byte) bool       { return b >= '0' && b <= '9' }
func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
