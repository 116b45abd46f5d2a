// Package plan reads jj-kaisen's implementation plans: a preamble, then
// numbered "## Task N: title" sections, each with a **Files:** list of the
// files it creates, modifies, tests or deletes (or an ad-hoc list of task
// descriptions), and scans them mechanically before a run (Preflight). It
// is kaisen's own format, not OpenSpec, so it lives apart from package spec.
package plan

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/mdline"
)

// Plan is an implementation plan: a preamble (goal, global constraints,
// shared definitions) followed by numbered tasks. An ad-hoc plan is a
// plain list of task descriptions with no file areas.
type Plan struct {
	Preamble string     `json:"preamble"`
	Tasks    []PlanTask `json:"tasks"`
	AdHoc    bool       `json:"ad_hoc"`
	// NearHeadings are the lines that look like a task heading but are
	// not read as one: their text belongs to the preamble or to the task
	// before them.
	NearHeadings []PlanLine `json:"near_headings,omitempty"`
}

// PlanTask is one numbered task of a plan.
type PlanTask struct {
	Number int        `json:"number"`
	Title  string     `json:"title"`
	Text   string     `json:"-"` // the task's full text, heading included
	Line   int        `json:"line"`
	Files  []PlanFile `json:"files"`
	// Unread are the lines that look like a file list (they start with
	// "Files") but named no file the parser could read.
	Unread []PlanLine `json:"unread_files,omitempty"`
}

// PlanLine is one line of a plan, numbered from 1.
type PlanLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// FileRole says what a task does to a file, from its **Files:** list.
type FileRole string

// The roles a **Files:** entry can name. RoleTouch is an entry without a
// role ("- src/a.go").
const (
	RoleCreate FileRole = "create"
	RoleModify FileRole = "modify"
	RoleTest   FileRole = "test"
	RoleDelete FileRole = "delete"
	RoleTouch  FileRole = "touch"
)

// PlanFile is one entry of a task's **Files:** list.
type PlanFile struct {
	Role  FileRole `json:"role"`
	Path  string   `json:"path"`
	Lines string   `json:"lines,omitempty"` // "12-40" or "3,9-11", as written
}

// PlanError is a plan that cannot be used, with the line it is about.
type PlanError struct {
	Line int // 1-based; 0 when about the whole plan
	Msg  string
}

func (e *PlanError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

var (
	headingRe = lazyregexp.New(`^(#{1,6})[ \t]`)
	// "**Files:**", "**Files**:", "*Files:*", "__Files:__" or a plain
	// "Files:", after an optional list marker, any case.
	filesLabelRe = lazyregexp.New(`(?i)^[ \t]*(?:[-*+][ \t]+)?(?:(?:\*\*|__|\*|_)files:?(?:\*\*|__|\*|_):?|files:)[ \t]*(.*)$`)
	// A line that means to start a file list: "Files" first, then a
	// separator or nothing ("Files - a.txt", "**Files**").
	filesLikeRe = lazyregexp.New(`(?i)^[ \t]*(?:[-*+][ \t]+)?[*_]*files[*_]*[ \t]*(?:[:\-\x{2013}\x{2014}]|$)`)
)

var roleNames = map[string]FileRole{
	"create": RoleCreate, "new": RoleCreate,
	"modify": RoleModify, "change": RoleModify, "edit": RoleModify, "update": RoleModify,
	"test": RoleTest, "tests": RoleTest,
	"delete": RoleDelete, "remove": RoleDelete,
}

// ParsePlan reads a plan. Tasks are headings "## Task N: title" (any
// level from ## to ######); a task runs to the next task heading or to a
// heading shallower than its own. Everything before the first task is the
// preamble. A document without task headings is read as an ad-hoc list:
// each top-level list item is a task, numbered from 1.
func ParsePlan(data []byte) (*Plan, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	inFence := fenceMask(lines)

	type span struct {
		start, end, level int
	}
	var spans []span
	for i, l := range lines {
		if inFence[i] || !strings.HasPrefix(l, "#") {
			continue
		}
		if h, ok := parseTaskHeading(l); ok {
			if n := len(spans); n > 0 && spans[n-1].end < 0 {
				spans[n-1].end = i
			}
			spans = append(spans, span{start: i, end: -1, level: h.level})
			continue
		}
		if m := headingRe.FindStringSubmatch(l); m != nil {
			if n := len(spans); n > 0 && spans[n-1].end < 0 && len(m[1]) < spans[n-1].level {
				spans[n-1].end = i
			}
		}
	}
	near := nearTaskHeadings(lines, inFence)
	if len(spans) == 0 {
		p, err := parseAdHoc(lines, inFence)
		if p != nil {
			p.NearHeadings = near
		}
		return p, err
	}
	p := &Plan{Preamble: strings.TrimRight(strings.Join(lines[:spans[0].start], "\n"), "\n \t"), NearHeadings: near}
	seen := map[int]int{}
	for _, s := range spans {
		if s.end < 0 {
			s.end = len(lines)
		}
		h, _ := parseTaskHeading(lines[s.start])
		n, err := strconv.Atoi(h.number)
		if err != nil || n <= 0 {
			return nil, &PlanError{Line: s.start + 1, Msg: fmt.Sprintf("task number %q is not a positive integer", h.number)}
		}
		if prev, dup := seen[n]; dup {
			return nil, &PlanError{Line: s.start + 1, Msg: fmt.Sprintf("task %d is numbered again (first at line %d); renumber one of them", n, prev)}
		}
		seen[n] = s.start + 1
		if msg := titleProblem(n, lines[s.start]); msg != "" {
			return nil, &PlanError{Line: s.start + 1, Msg: msg}
		}
		t := PlanTask{
			Number: n,
			Title:  h.title,
			Text:   strings.TrimRight(strings.Join(lines[s.start:s.end], "\n"), "\n \t"),
			Line:   s.start + 1,
		}
		files, unread, err := parseFiles(lines, inFence, s.start+1, s.end)
		if err != nil {
			return nil, err
		}
		t.Files, t.Unread = files, unread
		p.Tasks = append(p.Tasks, t)
	}
	return p, nil
}

type taskHeading struct {
	level  int
	number string
	title  string
}

// parseTaskHeading reads "### Task 3: title" (## to ######; the separator
// after the number may be ":", ".", "-", an en or em dash, or a space).
func parseTaskHeading(l string) (taskHeading, bool) {
	var h taskHeading
	for h.level < len(l) && l[h.level] == '#' {
		h.level++
	}
	if h.level < 2 || h.level > 6 {
		return h, false
	}
	rest := strings.TrimLeft(l[h.level:], " \t")
	if len(rest) == len(l)-h.level || len(rest) < 5 || !strings.EqualFold(rest[:4], "task") {
		return h, false
	}
	after := strings.TrimLeft(rest[4:], " \t")
	if len(after) == len(rest)-4 {
		return h, false // "Tasks", "Taskforce"
	}
	k := 0
	for k < len(after) && after[k] >= '0' && after[k] <= '9' {
		k++
	}
	if k == 0 {
		return h, false
	}
	h.number, rest = after[:k], after[k:]
	if rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		if r != ' ' && r != '\t' && r != ':' && r != '.' && r != '-' && r != '\u2013' && r != '\u2014' {
			return h, false // "Task 3b"
		}
		rest = strings.TrimLeft(rest, " \t")
		if r, size := utf8.DecodeRuneInString(rest); r == ':' || r == '.' || r == '-' || r == '\u2013' || r == '\u2014' {
			rest = rest[size:]
		}
	}
	h.title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
	return h, true
}

// titleProblem checks the line a task's title comes from: a title
// becomes a change description on jj's command line and a line of the
// ledger, so it must be valid UTF-8 without control characters (a tab is
// allowed). It returns "" when the line is fine, else what is wrong,
// with the 1-based column in runes.
func titleProblem(n int, line string) string {
	col := 0
	for i, r := range line {
		col++
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(line[i:], "\uFFFD"):
			return fmt.Sprintf("task %d title is not valid UTF-8 at column %d: save the plan as UTF-8", n, col)
		case r != '\t' && unicode.IsControl(r):
			return fmt.Sprintf("task %d title holds the control character U+%04X at column %d: remove it", n, r, col)
		}
	}
	return ""
}

// planFence is a fence as a plan writes one: ^[ \t]{0,3}(```+|~~~+),
// closed by a run of the same character at least as long with only
// whitespace after it.
var planFence = mdline.Fence{
	Indent:    isBlank,
	MaxIndent: 3,
	Closes:    func(rest string) bool { return strings.TrimSpace(rest) == "" },
}

// planList is a plan's list item marker ("-", "*", "+", "1.", "1)")
// after blanks.
var planList = mdline.List{Space: isBlank, MaxDigits: -1}

func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// fenceMask marks the lines inside fenced code blocks (fences included).
func fenceMask(lines []string) []bool { return planFence.Mask(lines) }

// listItem splits a markdown list item ("- x", "* x", "+ x", "1. x",
// "1) x") into its indentation and text.
func listItem(l string) (indent, text string, ok bool) {
	ind, after, ok := planList.Marker(l)
	if !ok {
		return "", "", false
	}
	rest := l[after:]
	if rest == "" || !isBlank(rune(rest[0])) {
		return "", "", false
	}
	return l[:ind], strings.TrimLeft(rest, " \t"), true
}

// parseFiles reads the file lists between lines [from, to): a label
// ("**Files:**", "Files:", …) with paths after it on its line and/or a
// list below it. A line that looks like a label but yields no path is
// returned as unread.
func parseFiles(lines []string, inFence []bool, from, to int) ([]PlanFile, []PlanLine, error) {
	var files []PlanFile
	var unread []PlanLine
	add := func(line int, entry string) (int, error) {
		fs, err := parseFileEntry(entry)
		if err != nil {
			return 0, &PlanError{Line: line + 1, Msg: err.Error()}
		}
		for _, f := range fs {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
		return len(fs), nil
	}
	for i := from; i < to; i++ {
		if inFence[i] || !containsFold(lines[i], "files") {
			continue
		}
		m := filesLabelRe.FindStringSubmatch(lines[i])
		if m == nil {
			if filesLikeRe.MatchString(lines[i]) {
				unread = append(unread, PlanLine{Line: i + 1, Text: strings.TrimSpace(lines[i])})
			}
			continue
		}
		named := 0
		if rest := strings.TrimSpace(m[1]); rest != "" {
			n, err := add(i, rest)
			if err != nil {
				return nil, nil, err
			}
			named += n
		}
		// The list that follows; blank lines may separate it from the label.
		j := i + 1
		for j < to && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		for ; j < to && !inFence[j]; j++ {
			_, item, ok := listItem(lines[j])
			if !ok {
				break
			}
			n, err := add(j, item)
			if err != nil {
				return nil, nil, err
			}
			named += n
		}
		if named == 0 {
			unread = append(unread, PlanLine{Line: i + 1, Text: strings.TrimSpace(lines[i])})
		}
		i = j - 1
	}
	return files, unread, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// parseFileEntry reads "Modify: `src/a.go:10-20`, `src/b.go`" or a bare
// path list.
func parseFileEntry(entry string) ([]PlanFile, error) {
	role := RoleTouch
	if word, rest, ok := strings.Cut(entry, ":"); ok {
		if r, known := roleNames[strings.ToLower(strings.TrimSpace(word))]; known {
			role, entry = r, strings.TrimSpace(rest)
		}
	}
	var raw []string
	if strings.Contains(entry, "`") {
		parts := strings.Split(entry, "`")
		for k := 1; k < len(parts); k += 2 {
			raw = append(raw, parts[k])
		}
	} else {
		for _, p := range strings.Split(entry, ",") {
			// Bare paths end at the first space: "src/a.go (new helper)".
			if f := strings.Fields(p); len(f) > 0 {
				raw = append(raw, f[0])
			}
		}
	}
	var res []PlanFile
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		f := PlanFile{Role: role, Path: r}
		if i := strings.LastIndexByte(r, ':'); i > 0 && isLineRanges(r[i+1:]) {
			f.Path, f.Lines = r[:i], strings.ReplaceAll(r[i+1:], " ", "")
		}
		clean, err := cleanPlanPath(f.Path)
		if err != nil {
			return nil, err
		}
		f.Path = clean
		res = append(res, f)
	}
	if len(res) == 0 && role != RoleTouch {
		return nil, fmt.Errorf("%s: entry names no path (write `- %s: path/to/file`)", role, strings.ToUpper(string(role[:1]))+string(role[1:]))
	}
	return res, nil
}

// isLineRanges reports whether s reads "12", "12-40" or "3,9-11".
func isLineRanges(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	prev := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '-' || c == ',':
			if prev < '0' || prev > '9' {
				return false
			}
		case c == ' ' || c == '\t':
			if prev != ',' && prev != ' ' && prev != '\t' {
				return false
			}
		default:
			return false
		}
		prev = c
	}
	return prev >= '0' && prev <= '9'
}

// cleanPlanPath checks that p is a path inside the repository and returns
// it in canonical slash form.
func cleanPlanPath(p string) (string, error) {
	// A path is a line of the ledger and an argument of jj's: UTF-8,
	// no control character (a ledger not read back wedges every verb).
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("file path %q is not valid UTF-8: save the plan as UTF-8", p)
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("file path %q contains a control character", p)
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("file path %q must be relative to the repository root", p)
	}
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("file path %q is outside the repository", p)
	}
	return c, nil
}

// parseAdHoc reads a plain markdown list: each top-level item (with its
// indented continuation lines) is one task.
func parseAdHoc(lines []string, inFence []bool) (*Plan, error) {
	p := &Plan{AdHoc: true}
	first := -1
	var cur []string
	curLine := 0
	// flush ends the current item. Its title is the item's first
	// non-blank line, which is a continuation line when the item's own
	// line is empty ("-" alone), so the title is checked here too.
	var bad *PlanError
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.TrimSpace(strings.Join(cur, "\n"))
		if text != "" {
			t, err := adHocTask(len(p.Tasks)+1, text, curLine)
			if msg := titleProblem(t.Number, t.Title); msg != "" && bad == nil {
				bad = &PlanError{Line: curLine, Msg: msg}
			}
			if err != nil && bad == nil {
				bad = asPlanError(err)
			}
			p.Tasks = append(p.Tasks, t)
		}
		cur = nil
	}
	for i, l := range lines {
		if inFence[i] {
			if cur != nil {
				cur = append(cur, l)
			}
			continue
		}
		if indent, item, ok := listItem(l); ok && indent == "" {
			flush()
			if msg := titleProblem(len(p.Tasks)+1, l); msg != "" {
				return nil, &PlanError{Line: i + 1, Msg: msg}
			}
			if first < 0 {
				first = i
			}
			cur, curLine = []string{item}, i+1
			continue
		}
		if cur != nil {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				cur = append(cur, strings.TrimSpace(l))
				continue
			}
			flush()
		}
	}
	flush()
	if bad != nil {
		return nil, bad
	}
	if len(p.Tasks) == 0 {
		return nil, &PlanError{Msg: "no tasks found: write headings like \"### Task 1: title\" or a list of tasks (\"- do this\")"}
	}
	p.Preamble = strings.TrimRight(strings.Join(lines[:first], "\n"), "\n \t")
	return p, nil
}

func adHocTask(n int, text string, line int) (PlanTask, error) {
	title, _, _ := strings.Cut(text, "\n")
	t := PlanTask{Number: n, Title: strings.TrimSpace(title), Text: fmt.Sprintf("### Task %d: %s", n, text), Line: line}
	files, unread, err := adHocFiles(text)
	if err != nil {
		var pe *PlanError
		if errors.As(err, &pe) {
			msg := fmt.Sprintf("task %d: %s", n, pe.Msg)
			if line > 0 {
				return t, &PlanError{Line: line + pe.Line - 1, Msg: msg}
			}
			return t, &PlanError{Msg: msg}
		}
		return t, err
	}
	for i := range unread {
		unread[i].Line += max(line, 1) - 1
	}
	// Lines of the plan file; of the --task text (from 1) when line is 0.
	t.Files, t.Unread = files, unread
	return t, nil
}

// AdHocPlan builds a plan from task descriptions given one by one (for
// example by repeated --task flags).
func AdHocPlan(texts []string) (*Plan, error) {
	p := &Plan{AdHoc: true}
	for i, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, &PlanError{Msg: fmt.Sprintf("task %d is empty", i+1)}
		}
		title, _, _ := strings.Cut(t, "\n")
		if msg := titleProblem(i+1, title); msg != "" {
			return nil, &PlanError{Msg: msg}
		}
		task, err := adHocTask(i+1, t, 0)
		if err != nil {
			return nil, err
		}
		p.Tasks = append(p.Tasks, task)
	}
	if len(p.Tasks) == 0 {
		return nil, &PlanError{Msg: "no tasks given"}
	}
	return p, nil
}

func asPlanError(err error) *PlanError {
	var pe *PlanError
	if errors.As(err, &pe) {
		return pe
	}
	return &PlanError{Msg: err.Error()}
}

// Task returns the task numbered n.
func (p *Plan) Task(n int) (PlanTask, bool) {
	for _, t := range p.Tasks {
		if t.Number == n {
			return t, true
		}
	}
	return PlanTask{}, false
}

// Brief returns task n's full text with the preamble prepended, so that
// the brief stands alone.
func (p *Plan) Brief(n int) (string, error) {
	t, ok := p.Task(n)
	if !ok {
		return "", fmt.Errorf("no task %d in the plan (it has %s)", n, p.numbers())
	}
	var b strings.Builder
	if p.Preamble != "" {
		b.WriteString(p.Preamble)
		b.WriteString("\n\n")
	}
	b.WriteString(t.Text)
	b.WriteString("\n")
	return b.String(), nil
}

func (p *Plan) numbers() string {
	if len(p.Tasks) == 0 {
		return "no tasks"
	}
	ns := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		ns[i] = strconv.Itoa(t.Number)
	}
	return "tasks " + strings.Join(ns, ", ")
}

// Paths returns the distinct paths of the task's files, in order.
func (t PlanTask) Paths() []string {
	res := make([]string, 0, len(t.Files))
	for _, f := range t.Files {
		if !slices.Contains(res, f.Path) {
			res = append(res, f.Path)
		}
	}
	return res
}
