package conflict

import (
	"fmt"
	"strings"

	"github.com/specstack/specstack/spec/tasksmd"
)

// TasksOptions says how MergeTasks writes what stays in conflict.
type TasksOptions struct {
	Style     Style  // marker style; default StyleDiff, as jj writes
	MarkerLen int    // default MarkerLenFor(base, left, right)
	Labels    Labels // default "base", "left", "right"
}

// TaskConflict is one hunk MergeTasks left in its output.
type TaskConflict struct {
	Line   int    `json:"line"` // 1-based line of its opening marker
	Reason string `json:"reason"`
}

// TasksResult is the outcome of MergeTasks.
type TasksResult struct {
	Text      string
	Conflicts []TaskConflict
	// Ticks are the tasks (id, else text) done in Text but not in base.
	Ticks []string
}

// tline is one line of a tasks file as the merge compares it.
type tline struct {
	raw     string // with its line end
	tok     token  // what the diff compares
	task    bool
	key     string // the task's id ("1.2"), else its text
	checked bool
}

// token is what the diff compares: a task's indent, key and line end (so
// ticking its box changes nothing), or a whole other line.
type token struct {
	task             bool
	indent, key, eol string // for a task; key holds the raw line otherwise
}

func readTasks(text string) []tline {
	raws := SplitLines(text)
	out := make([]tline, len(raws))
	for i, raw := range raws {
		out[i] = readTaskLine(raw)
	}
	return out
}

func readTaskLine(raw string) tline {
	if !mayBeTask(raw) {
		return tline{raw: raw, tok: token{key: raw}}
	}
	body, eol := cutEOL(raw)
	t, ok := tasksmd.ParseTaskLine(body)
	if !ok {
		return tline{raw: raw, tok: token{key: raw}}
	}
	key := t.ID
	if key == "" {
		key = t.Text
	}
	return tline{raw: raw, task: true, key: key, checked: t.Checked,
		tok: token{task: true, indent: t.Indent, key: key, eol: eol}}
}

// aligned reports whether line i of the three versions holds the same
// line or the same task (same indent, key and line end), parsing only
// lines that differ from the base. It returns the three parsed lines, or
// for three equal lines ok with same set.
func aligned(b, l, r string) (tb, tl, tr tline, same, ok bool) {
	if l == b && r == b {
		return tline{}, tline{}, tline{}, true, true
	}
	tb = readTaskLine(b)
	tl, tr = tb, tb
	if l != b {
		if tl = readTaskLine(l); tl.tok != tb.tok {
			return tb, tl, tr, false, false
		}
	}
	if r != b {
		if tr = readTaskLine(r); tr.tok != tb.tok {
			return tb, tl, tr, false, false
		}
	}
	return tb, tl, tr, false, true
}

// mayBeTask is a cheap filter before tasksmd.ParseTaskLine: a task line
// holds a '[' and opens, after blanks, with a list marker or a digit.
func mayBeTask(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == ' ' || c == '\t':
			continue
		case c == '-' || c == '*' || c == '+' || ('0' <= c && c <= '9'):
			return strings.IndexByte(raw[i:], '[') >= 0
		case c < 0x80:
			return false
		default:
			return true // other Unicode blanks: let the real parser decide
		}
	}
	return false
}

func cutEOL(raw string) (body, eol string) {
	if strings.HasSuffix(raw, "\n") {
		body, eol = raw[:len(raw)-1], "\n"
		if strings.HasSuffix(body, "\r") {
			body, eol = body[:len(body)-1], "\r\n"
		}
	}
	if eol == "" {
		return raw, ""
	}
	return body, eol
}

// form is a task line with its box cleared: what remains when the tick
// is set aside (indent, bullet, text, line end).
func (t tline) form() string {
	body, eol := cutEOL(t.raw)
	f, _ := tasksmd.SetTaskChecked(body, false)
	return f + eol
}

// MergeTasks merges two edits of one tasks.md. Task lines (OpenSpec's
// checkbox grammar, read by tasksmd.ParseTaskLine) are matched by their id
// ("1.2") when they have one, else by their text, so ticking a box never
// makes a line differ. Then:
//   - a task is done when either side ticked it and no side changed its
//     text (a tick is merged three-way: a side that cleared a box nobody
//     else touched clears it);
//   - every other line merges as in Chunks: a region only one side
//     changed takes that side;
//   - a task whose text both sides changed differently, one side changed
//     and the other ticked, or one side deleted and the other ticked or
//     edited, stays a conflict, written with markers (opts) around the
//     smallest region that holds it.
func MergeTasks(base, left, right string, opts TasksOptions) TasksResult {
	if opts.Style == "" {
		opts.Style = StyleDiff
	}
	if opts.MarkerLen == 0 {
		opts.MarkerLen = MarkerLenFor(base, left, right)
	}
	if opts.Labels == (Labels{}) {
		opts.Labels = Labels{Base: "base", Left: "left", Right: "right"}
	}
	eol := detectEOL(base, left, right)
	ob, lb, rb := SplitLines(base), SplitLines(left), SplitLines(right)
	m := &tasksMerge{lines: make([]string, 0, max(len(lb), len(rb)))}
	// The common case differs only in boxes and task texts, line for
	// line: merge the aligned head and tail without diffing, parsing only
	// the lines that differ, and diff what lies between.
	n := min(len(ob), len(lb), len(rb))
	head := 0
	for ; head < n; head++ {
		tb, tl, tr, same, ok := aligned(ob[head], lb[head], rb[head])
		if !ok {
			break
		}
		if same {
			m.emit(ob[head])
		} else {
			m.line3(tb, tl, tr)
		}
	}
	tail := 0
	for tail < n-head {
		k := tail + 1
		if _, _, _, _, ok := aligned(ob[len(ob)-k], lb[len(lb)-k], rb[len(rb)-k]); !ok {
			break
		}
		tail = k
	}
	m.middle(ob[head:len(ob)-tail], lb[head:len(lb)-tail], rb[head:len(rb)-tail])
	for k := tail; k >= 1; k-- {
		// Parsed again rather than kept: cheaper than holding the tail.
		b := ob[len(ob)-k]
		tb, tl, tr, same, _ := aligned(b, lb[len(lb)-k], rb[len(rb)-k])
		if same {
			m.emit(b)
		} else {
			m.line3(tb, tl, tr)
		}
	}
	m.flush()
	return m.render(opts, eol)
}

// middle merges the region between the aligned head and tail by diffing
// its task keys.
func (m *tasksMerge) middle(ob, lb, rb []string) {
	if len(ob) == 0 && len(lb) == 0 && len(rb) == 0 {
		return
	}
	read := func(raws []string) []tline {
		out := make([]tline, len(raws))
		for i, raw := range raws {
			out[i] = readTaskLine(raw)
		}
		return out
	}
	o, l, r := read(ob), read(lb), read(rb)
	toks := func(ts []tline) []token {
		out := make([]token, len(ts))
		for i, t := range ts {
			out[i] = t.tok
		}
		return out
	}
	for _, sp := range spans(toks(o), toks(l), toks(r)) {
		ob, lb, rb := o[sp.o0:sp.o1], l[sp.l0:sp.l1], r[sp.r0:sp.r1]
		switch sp.kind {
		case Unchanged:
			for i := range ob {
				m.line3(ob[i], lb[i], rb[i])
			}
		case LeftChanged:
			m.oneSide(ob, lb, rb, "left", "right")
		case RightChanged:
			m.oneSide(ob, rb, lb, "right", "left")
		case BothSame:
			m.both(ob, lb, rb)
		case Conflicting:
			m.conflict(ob, lb, rb, "both sides changed the task list here differently"+keysNote(ob, lb, rb))
		}
	}
}

// tasksMerge accumulates output pieces: merged lines, and conflicts that
// are coalesced while they touch.
type tasksMerge struct {
	lines   []string // every merged line, in order
	pieces  []tpiece
	pending *tpiece
	ticks   []string
}

// tpiece is a run of merged lines (lines[start:end]) or a conflict.
type tpiece struct {
	start, end        int
	conflict          bool
	base, left, right []string
	reasons           []string
}

func (m *tasksMerge) emit(raw string) {
	m.flush()
	m.lines = append(m.lines, raw)
	if n := len(m.pieces); n > 0 && !m.pieces[n-1].conflict {
		m.pieces[n-1].end = len(m.lines)
		return
	}
	m.pieces = append(m.pieces, tpiece{start: len(m.lines) - 1, end: len(m.lines)})
}

func (m *tasksMerge) flush() {
	if m.pending != nil {
		m.pieces = append(m.pieces, *m.pending)
		m.pending = nil
	}
}

func (m *tasksMerge) conflict(base, left, right []tline, reason string) {
	if m.pending == nil {
		m.pending = &tpiece{conflict: true}
	}
	for _, t := range base {
		m.pending.base = append(m.pending.base, t.raw)
	}
	for _, t := range left {
		m.pending.left = append(m.pending.left, t.raw)
	}
	for _, t := range right {
		m.pending.right = append(m.pending.right, t.raw)
	}
	if len(m.pending.reasons) == 0 || m.pending.reasons[len(m.pending.reasons)-1] != reason {
		m.pending.reasons = append(m.pending.reasons, reason)
	}
}

func (m *tasksMerge) tick(b tline, out tline) {
	if out.checked && !b.checked {
		m.ticks = append(m.ticks, out.key)
	}
}

// line3 merges one line that all three versions hold (same task key).
func (m *tasksMerge) line3(b, l, r tline) {
	switch {
	case l.raw == b.raw:
		m.tick(b, r)
		m.emit(r.raw)
		return
	case r.raw == b.raw || l.raw == r.raw:
		m.tick(b, l)
		m.emit(l.raw)
		return
	}
	fb, fl, fr := b.form(), l.form(), r.form()
	switch {
	case fl == fr:
		// Only the boxes differ: a three-way merge of one bit cannot
		// conflict.
		out := l
		if l.checked == b.checked {
			out = r
		}
		m.tick(b, out)
		m.emit(out.raw)
	case fl == fb || fr == fb:
		m.conflict([]tline{b}, []tline{l}, []tline{r}, fmt.Sprintf("task %s: its text changed on one side and its box on the other", b.key))
	default:
		m.conflict([]tline{b}, []tline{l}, []tline{r}, fmt.Sprintf("task %s: its text changed differently on both sides", b.key))
	}
}

// both merges a region both sides restructured the same way: line by
// line, with no base line to compare with, a box is ticked when either
// side ticked it; any other difference keeps the region in conflict.
func (m *tasksMerge) both(base, left, right []tline) {
	out := make([]string, len(left))
	for i, l := range left {
		r := right[i]
		switch {
		case l.raw == r.raw:
			out[i] = l.raw
		case l.task && l.form() == r.form():
			out[i] = l.raw
			if r.checked {
				out[i] = r.raw
			}
		default:
			m.conflict(base, left, right, fmt.Sprintf("task %s: changed differently on both sides", l.key))
			return
		}
	}
	for _, raw := range out {
		m.emit(raw)
	}
}

// oneSide handles a region only side `changed` restructured: it is taken
// when the other side left the region's lines exactly as in base.
func (m *tasksMerge) oneSide(base, changed, other []tline, changedName, otherName string) {
	for i := range base {
		if base[i].raw == other[i].raw {
			continue
		}
		reason := fmt.Sprintf("task %s: %s changed it and %s removed or rewrote it", base[i].key, otherName, changedName)
		if changedName == "left" {
			m.conflict(base, changed, other, reason)
		} else {
			m.conflict(base, other, changed, reason)
		}
		return
	}
	for _, t := range changed {
		m.emit(t.raw)
	}
}

func keysNote(groups ...[]tline) string {
	seen := map[string]bool{}
	var keys []string
	for _, g := range groups {
		for _, t := range g {
			if t.task && t.key != "" && !seen[t.key] {
				seen[t.key] = true
				keys = append(keys, t.key)
			}
		}
	}
	if len(keys) == 0 || len(keys) > 5 {
		return ""
	}
	return " (tasks " + strings.Join(keys, ", ") + ")"
}

func (m *tasksMerge) render(opts TasksOptions, eol string) TasksResult {
	total := 0
	for _, p := range m.pieces {
		if p.conflict {
			total++
		}
	}
	var res TasksResult
	var b strings.Builder
	size := 0
	for _, l := range m.lines {
		size += len(l)
	}
	b.Grow(size)
	line := 1
	for i := range m.pieces {
		p := &m.pieces[i]
		if !p.conflict {
			for _, l := range m.lines[p.start:p.end] {
				b.WriteString(l)
			}
			line += p.end - p.start
			continue
		}
		res.Conflicts = append(res.Conflicts, TaskConflict{Line: line, Reason: strings.Join(p.reasons, "; ")})
		h := Materialize(
			[]Term{{Label: ParseLabel(opts.Labels.Left), Text: strings.Join(p.left, "")}, {Label: ParseLabel(opts.Labels.Right), Text: strings.Join(p.right, "")}},
			[]Term{{Label: ParseLabel(opts.Labels.Base), Text: strings.Join(p.base, "")}},
			opts.Style, opts.MarkerLen, fmt.Sprintf("conflict %d of %d", len(res.Conflicts), total), eol)
		b.WriteString(h)
		line += strings.Count(h, "\n")
	}
	res.Text = b.String()
	res.Ticks = m.ticks
	return res
}

// MergeTasks2 merges two versions of a region of a tasks file when no
// base is known (git's default conflict style): the two must hold the
// same lines and tasks in the same order, differing only in boxes, and a
// box is ticked when either side ticked it. ok is false otherwise, with
// the reason.
func MergeTasks2(left, right string) (text string, ok bool, reason string) {
	l, r := readTasks(left), readTasks(right)
	if len(l) != len(r) {
		return "", false, "without a base, tasks merges only sides that differ in their boxes; these differ in their lines"
	}
	var b strings.Builder
	for i := range l {
		switch {
		case l[i].raw == r[i].raw:
			b.WriteString(l[i].raw)
		case l[i].task && r[i].task && l[i].form() == r[i].form():
			if r[i].checked && !l[i].checked {
				b.WriteString(r[i].raw)
			} else {
				b.WriteString(l[i].raw)
			}
		default:
			key := l[i].key
			if key == "" {
				key = strings.TrimSpace(l[i].raw)
			}
			return "", false, fmt.Sprintf("without a base, tasks merges only sides that differ in their boxes; %q differs", key)
		}
	}
	return b.String(), true, ""
}
