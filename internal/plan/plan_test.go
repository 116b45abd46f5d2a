package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func readPlan(t *testing.T, name string) *Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "plan", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan(data)
	if err != nil {
		t.Fatalf("ParsePlan(%s): %v", name, err)
	}
	return p
}

func TestParsePlanReference(t *testing.T) {
	p := readPlan(t, "reference.md")
	if p.AdHoc {
		t.Fatal("plan read as ad-hoc")
	}
	want := []struct {
		num   int
		title string
		files []PlanFile
	}{
		{1, "Add a and b", []PlanFile{{RoleCreate, "src/a.ts", ""}, {RoleModify, "src/b.ts", "10-20"}}},
		{2, "Add c", []PlanFile{{RoleCreate, "src/c.ts", ""}}},
		{3, "Touch a and d", []PlanFile{{RoleModify, "src/a.ts", ""}, {RoleTest, "src/d.ts", "1-5,9"}}},
		{4, "e", []PlanFile{{RoleTouch, "src/e.ts", ""}}},
		{5, "d and e", []PlanFile{{RoleModify, "src/d.ts", ""}, {RoleModify, "src/e.ts", ""}}},
	}
	if len(p.Tasks) != len(want) {
		t.Fatalf("got %d tasks, want %d", len(p.Tasks), len(want))
	}
	for i, w := range want {
		got := p.Tasks[i]
		if got.Number != w.num || got.Title != w.title || !reflect.DeepEqual(got.Files, w.files) {
			t.Errorf("task %d: got %d %q %+v, want %d %q %+v", i, got.Number, got.Title, got.Files, w.num, w.title, w.files)
		}
	}
	if !strings.HasPrefix(p.Preamble, "# Widget plan") || !strings.HasSuffix(p.Preamble, "no new dependencies.") {
		t.Errorf("preamble = %q", p.Preamble)
	}
	if !strings.Contains(p.Tasks[0].Text, "### Task 9: not a task") {
		t.Error("fenced block dropped from task 1's text")
	}
	if strings.Contains(p.Tasks[4].Text, "Appendix") {
		t.Error("task 5 runs past a shallower heading")
	}
}

func TestParsePlanHeadings(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		nums   []int
		titles []string
	}{
		{"h2 without colon", "## Task 3 Do it\nbody\n## Task 4 - Next\n", []int{3, 4}, []string{"Do it", "Next"}},
		{"h3 with colon", "### Task 1: One\n### Task 2: Two\n", []int{1, 2}, []string{"One", "Two"}},
		{"em dash and trailing hashes", "### Task 7 — Seven ###\n", []int{7}, []string{"Seven"}},
		{"no title", "### Task 1\nbody\n", []int{1}, []string{""}},
		{"lower case", "### task 2: lower\n", []int{2}, []string{"lower"}},
		{"subheading stays in task", "## Task 1: A\n### Steps\n- x\n## Task 2: B\n", []int{1, 2}, []string{"A", "B"}},
		{"crlf", "### Task 1: A\r\nbody\r\n", []int{1}, []string{"A"}},
		{"tilde fence hides heading", "### Task 1: A\n~~~\n### Task 2: B\n~~~\n", []int{1}, []string{"A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var nums []int
			var titles []string
			for _, task := range p.Tasks {
				nums = append(nums, task.Number)
				titles = append(titles, task.Title)
			}
			if !reflect.DeepEqual(nums, tt.nums) || !reflect.DeepEqual(titles, tt.titles) {
				t.Errorf("got %v %q, want %v %q", nums, titles, tt.nums, tt.titles)
			}
		})
	}
}

func TestParsePlanErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"empty", "", 0, "no tasks found"},
		{"prose only", "# Title\n\nJust text.\n", 0, "no tasks found"},
		{"duplicate", "### Task 1: A\n### Task 1: B\n", 2, "task 1 is numbered again (first at line 1)"},
		{"zero", "### Task 0: A\n", 1, "not a positive integer"},
		{"absolute path", "### Task 1: A\n**Files:**\n- Modify: `/etc/passwd`\n", 3, "must be relative"},
		{"escaping path", "### Task 1: A\n**Files:**\n- Create: `../x.go`\n", 3, "outside the repository"},
		{"role without path", "### Task 1: A\n**Files:**\n- Create:\n", 3, "names no path"},
		{"NUL in title", "### Task 1: A\n\n### Task 2: b\x00c\n", 3, "task 2 title holds the control character U+0000 at column 14"},
		{"ESC in title", "### Task 1: a\x1b[31m\n", 1, "task 1 title holds the control character U+001B at column 14"},
		{"DEL in title", "### Task 1: a\x7f\n", 1, "U+007F"},
		{"C1 in title", "### Task 1: a\u0085\n", 1, "U+0085"},
		{"invalid UTF-8 in title", "### Task 1: a\xff\n", 1, "not valid UTF-8 at column 14"},
		{"control in ad-hoc item", "- fine\n- bad\x01\n", 2, "task 2 title holds the control character U+0001 at column 6"},
		{"invalid UTF-8 in an ad-hoc title on a continuation line", "* \n \xda\n", 1, "task 1 title is not valid UTF-8"},
		{"invalid UTF-8 in a file path", "### Task 1: A\n**Files:** `a\xff.txt`\n", 2, `file path "a\xff.txt" is not valid UTF-8`},
		{"a tab in a file path", "### Task 1: A\n**Files:**\n- Create: `a\tb.txt`\n", 3, "contains a control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePlan([]byte(tt.in))
			var pe *PlanError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *PlanError", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Msg, tt.line, tt.msg)
			}
		})
	}
}

func TestParsePlanAdHoc(t *testing.T) {
	p := readPlan(t, "adhoc.md")
	if !p.AdHoc {
		t.Fatal("list not read as ad-hoc")
	}
	var titles []string
	for _, task := range p.Tasks {
		titles = append(titles, task.Title)
	}
	if want := []string{"Fix the login bug", "Write docs", "Bump version"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
	if !strings.Contains(p.Tasks[0].Text, "in the auth module") {
		t.Errorf("continuation line lost: %q", p.Tasks[0].Text)
	}
	if p.Preamble != "Things to do today:" {
		t.Errorf("preamble %q", p.Preamble)
	}
}

func TestAdHocPlan(t *testing.T) {
	p, err := AdHocPlan([]string{"one", "two\nmore"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 2 || p.Tasks[1].Number != 2 || p.Tasks[1].Title != "two" || !strings.HasPrefix(p.Tasks[1].Text, "### Task 2: two\nmore") {
		t.Errorf("got %+v", p.Tasks)
	}
	if _, err := AdHocPlan([]string{"ok", " "}); err == nil || !strings.Contains(err.Error(), "task 2 is empty") {
		t.Errorf("empty task: got %v", err)
	}
	if _, err := AdHocPlan([]string{"ok", "bell\x07\nmore"}); err == nil || !strings.Contains(err.Error(), "task 2 title holds the control character U+0007 at column 5") {
		t.Errorf("control character: got %v", err)
	}
	if p, err := AdHocPlan([]string{"tab\there", "body\nmay hold \x1b on later lines"}); err != nil || p.Tasks[0].Title != "tab\there" {
		t.Errorf("tab in a title, control characters in later lines: got %v", err)
	}
	if _, err := AdHocPlan(nil); err == nil {
		t.Error("no tasks: want an error")
	}
}

func TestBrief(t *testing.T) {
	p := readPlan(t, "reference.md")
	b, err := p.Brief(3)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "plan", "reference.brief3.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		os.WriteFile(golden, []byte(b), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b != string(want) {
		t.Errorf("brief 3:\n%s\nwant:\n%s", b, want)
	}
	if _, err := p.Brief(9); err == nil || !strings.Contains(err.Error(), "no task 9 in the plan (it has tasks 1, 2, 3, 4, 5)") {
		t.Errorf("missing task: got %v", err)
	}
}

func TestPreflight(t *testing.T) {
	in := `### Task 1: A
**Files:**
- Create: x.go
- Modify: exists.go
### Task 2: B
**Files:**
- Create: x.go
- Modify: gone.go
- Modify: x.go
### Task 3: C
no files here
### Task 4: D
**Files:**
- Create: x.go
`
	p, err := ParsePlan([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Preflight(func(_ PlanTask, path string) bool { return path == "exists.go" })
	want := []PlanFinding{
		{Kind: FindingMissingModify, Tasks: []int{2}, Path: "gone.go"},
		{Kind: FindingNoFiles, Tasks: []int{3}},
		{Kind: FindingDoubleCreate, Tasks: []int{1, 2, 4}, Path: "x.go"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].Kind != want[i].Kind || !reflect.DeepEqual(got[i].Tasks, want[i].Tasks) || got[i].Path != want[i].Path || got[i].Message == "" {
			t.Errorf("finding %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[2].Message, "tasks 1, 2 and 4 all create x.go: only one can") {
		t.Errorf("message %q", got[2].Message)
	}
}

func FuzzParsePlan(f *testing.F) {
	for _, name := range []string{"reference.md", "adhoc.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", "plan", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("## Task 1\n**Files:** `a:1-2`, b\n```\n## Task 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan(data)
		if err != nil {
			var pe *PlanError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *PlanError: %v", err)
			}
			return
		}
		if len(p.Tasks) == 0 {
			t.Fatal("no tasks and no error")
		}
		seen := map[int]bool{}
		for _, task := range p.Tasks {
			if task.Number <= 0 || seen[task.Number] {
				t.Fatalf("bad or duplicate task number %d", task.Number)
			}
			seen[task.Number] = true
			if strings.ContainsFunc(task.Title, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) || !utf8.ValidString(task.Title) {
				t.Fatalf("task %d: title %q holds a control character or invalid UTF-8", task.Number, task.Title)
			}
			for _, f := range task.Files {
				if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.HasPrefix(f.Path, "../") || f.Path == ".." {
					t.Fatalf("task %d: bad path %q", task.Number, f.Path)
				}
			}
			b, err := p.Brief(task.Number)
			if err != nil || !strings.Contains(b, task.Text) {
				t.Fatalf("brief %d: %v", task.Number, err)
			}
		}
	})
}

// TestPlanFileForms: the ways a task names its files, and the lines that
// look like a file list but name none (reported, never silently dropped).
func TestPlanFileForms(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		paths      []string
		unread     []int // plan lines
	}{
		{"bold inline", "**Files:** `a.txt`, `b.txt`", []string{"a.txt", "b.txt"}, nil},
		{"plain inline", "Files: a.txt, src/b.go", []string{"a.txt", "src/b.go"}, nil},
		{"lower case", "files: a.txt", []string{"a.txt"}, nil},
		{"bold colon outside", "**Files**: a.txt", []string{"a.txt"}, nil},
		{"plain label, list", "Files:\n- Create: `a.txt`\n- Modify: b.txt:3-4", []string{"a.txt", "b.txt"}, nil},
		{"dash instead of colon", "Files - a.txt", nil, []int{2}},
		{"empty bold label", "**Files:**\n\nprose", nil, []int{2}},
		{"prose mentioning files", "Keep the files small.", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan([]byte("### Task 1: x\n" + tc.body + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			task := p.Tasks[0]
			if got := task.Paths(); !slices.Equal(got, tc.paths) && !(len(got) == 0 && len(tc.paths) == 0) {
				t.Errorf("paths %q, want %q", got, tc.paths)
			}
			var lines []int
			for _, u := range task.Unread {
				lines = append(lines, u.Line)
			}
			if !slices.Equal(lines, tc.unread) {
				t.Errorf("unread lines %v, want %v", lines, tc.unread)
			}
			kinds := map[string]bool{}
			for _, f := range p.Preflight(nil) {
				kinds[f.Kind] = true
				if f.Kind == FindingUnreadFiles && !strings.Contains(f.Message, `"Files: a.txt, b.txt" on one line`) {
					t.Errorf("unread finding without the accepted forms: %s", f.Message)
				}
			}
			if kinds[FindingUnreadFiles] != (len(tc.unread) > 0) {
				t.Errorf("findings %v", kinds)
			}
		})
	}
}

// TestAdHocFiles: an ad-hoc task names its files with role lines or, when
// it has none, with backticked paths in its text.
func TestAdHocFiles(t *testing.T) {
	for _, tc := range []struct {
		text  string
		paths []string
	}{
		{"Modify: b.txt", []string{"b.txt"}},
		{"fix the bug in `src/a.go` and run `go test ./...`", []string{"src/a.go"}},
		{"fix it\nModify: `src/a.go`\nsee `docs/x.md`", []string{"src/a.go"}},
		{"update `README.md`, `a/b.c:10-20` and `--flag`", []string{"README.md", "a/b.c"}},
		{"run `make` then `/etc/passwd` and `../up.txt`", nil},
		{"Files: a.txt, b.txt", []string{"a.txt", "b.txt"}},
	} {
		p, err := AdHocPlan([]string{tc.text})
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if got := p.Tasks[0].Paths(); !slices.Equal(got, tc.paths) && !(len(got) == 0 && len(tc.paths) == 0) {
			t.Errorf("%q: paths %q, want %q", tc.text, got, tc.paths)
		}
	}
	// In a list plan too, with its own lines.
	p, err := ParsePlan([]byte("- fix `a.go`\n- docs\n  Modify: `d.md`\n- none\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := p.Tasks[0].Paths(), p.Tasks[1].Paths(); !slices.Equal(a, []string{"a.go"}) || !slices.Equal(b, []string{"d.md"}) {
		t.Errorf("list plan paths %q %q", a, b)
	}
	f := p.Preflight(nil)
	if len(f) != 1 || f[0].Kind != FindingNoFiles || !strings.Contains(f[0].Message, "backticked paths in the task text") {
		t.Errorf("findings %+v", f)
	}
	if _, err := AdHocPlan([]string{"Modify: /etc/passwd"}); err == nil || !strings.Contains(err.Error(), "task 1: file path \"/etc/passwd\" must be relative") {
		t.Errorf("absolute Modify: path: %v", err)
	}
}
