package tasksmd

import "testing"

func TestParseTaskLine(t *testing.T) {
	// Expectations checked against OpenSpec 1.13.2's TASK_LINE_PATTERN and
	// TASK_ID run by node on the same lines.
	tests := []struct {
		line string
		ok   bool
		want TaskLine
	}{
		{"- [ ] 1.1 Do it", true, TaskLine{Bullet: '-', Mark: ' ', ID: "1.1", Text: "1.1 Do it"}},
		{"- [x] 1.2 Done", true, TaskLine{Bullet: '-', Mark: 'x', Checked: true, ID: "1.2", Text: "1.2 Done"}},
		{"  * [X] 2.1a nested", true, TaskLine{Indent: "  ", Bullet: '*', Mark: 'X', Checked: true, ID: "2.1a", Text: "2.1a nested"}},
		{"+ [~] 3.1 tilde", true, TaskLine{Bullet: '+', Mark: '~', ID: "3.1", Text: "3.1 tilde"}},
		{"1. [ ] ordered", true, TaskLine{Bullet: '.', Number: "1", Mark: ' ', Text: "ordered"}},
		{"12) [x]done", true, TaskLine{Bullet: ')', Number: "12", Mark: 'x', Checked: true, Text: "done"}},
		{"1234567890. [ ] ten digits", false, TaskLine{}},
		{"-[ ] tight", true, TaskLine{Bullet: '-', Mark: ' ', Text: "tight"}},
		{"- [] empty", true, TaskLine{Bullet: '-', Mark: ' ', Text: "empty"}},
		{"- [  ] wide", true, TaskLine{Bullet: '-', Mark: ' ', Text: "wide"}},
		{"- [ x ] padded", true, TaskLine{Bullet: '-', Mark: 'x', Checked: true, Text: "padded"}},
		{"- [ x y] two", false, TaskLine{}},
		{"- [ ](link)", true, TaskLine{Bullet: '-', Mark: ' ', Text: "(link)"}},
		{"- [x](link)", false, TaskLine{}},
		{"- [A](https://x)", false, TaskLine{}},
		{"- [](x)", false, TaskLine{}},
		{"- [[] bracket", true, TaskLine{Bullet: '-', Mark: '[', Text: "bracket"}},
		{"- [😀] emoji", false, TaskLine{}},
		{"- [✓] check", true, TaskLine{Bullet: '-', Mark: '✓', Text: "check"}},
		{"- [ ]", true, TaskLine{Bullet: '-', Mark: ' '}},
		{"- [x] 1.2. no id", true, TaskLine{Bullet: '-', Mark: 'x', Checked: true, Text: "1.2. no id"}},
		{"- [x] 1 no id", true, TaskLine{Bullet: '-', Mark: 'x', Checked: true, Text: "1 no id"}},
		{"- [ ] 1.2ab3 x", true, TaskLine{Bullet: '-', Mark: ' ', Text: "1.2ab3 x"}},
		{"## 1. Group", false, TaskLine{}},
		{"---[ ] nope", false, TaskLine{}},
		{"- [ ] crlf\r", true, TaskLine{Bullet: '-', Mark: ' ', Text: "crlf"}},
		{"\ufeff- [x] bom", true, TaskLine{Indent: "\ufeff", Bullet: '-', Mark: 'x', Checked: true, Text: "bom"}},
		{"\u00a0- [ ] nbsp", true, TaskLine{Indent: "\u00a0", Bullet: '-', Mark: ' ', Text: "nbsp"}},
		{"- [ ] u2028\u2028tail", true, TaskLine{Bullet: '-', Mark: ' ', Text: "u2028"}},
		{"\u0085- [ ] nel", false, TaskLine{}},
	}
	for _, tt := range tests {
		got, ok := ParseTaskLine(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseTaskLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSetTaskChecked(t *testing.T) {
	tests := []struct {
		line    string
		checked bool
		want    string
		ok      bool
	}{
		{"- [ ] 1.1 a", true, "- [x] 1.1 a", true},
		{"- [x] 1.1 a", false, "- [ ] 1.1 a", true},
		{"- [X] 1.1 a\r", false, "- [ ] 1.1 a\r", true},
		{"- [] a", true, "- [x] a", true},
		{"- [  ] a", true, "- [x ] a", true},
		{"- [ x ] a", false, "- [   ] a", true},
		{"- [~] a", true, "- [x] a", true},
		{"- [x] a", true, "- [x] a", true},
		{"- [ ](a)", true, "- [ ](a)", false},
		{"plain", true, "plain", false},
		{"- [\u00a0] a", true, "- [x] a", true},
	}
	for _, tt := range tests {
		got, ok := SetTaskChecked(tt.line, tt.checked)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SetTaskChecked(%q, %v) = %q, %v; want %q, %v", tt.line, tt.checked, got, ok, tt.want, tt.ok)
		}
	}
}

func TestGroupHeading(t *testing.T) {
	tests := []struct {
		line          string
		number, title string
		ok            bool
	}{
		{"## 1. Export API", "1", "Export API", true},
		{"## 1.", "1", "", true},
		{"## 1.Export", "", "1.Export", true},
		{"## Notes", "", "Notes", true},
		{"##", "", "", true},
		{"##\r", "", "", true},
		{"### 1. Sub", "", "", false},
		{"##Notes", "", "", false},
		{"   ## 2. Docs\r", "2", "Docs", true},
		{"    ## 2. Docs", "", "", false},
	}
	for _, tt := range tests {
		n, title, ok := GroupHeading(tt.line)
		if n != tt.number || title != tt.title || ok != tt.ok {
			t.Errorf("GroupHeading(%q) = %q, %q, %v; want %q, %q, %v", tt.line, n, title, ok, tt.number, tt.title, tt.ok)
		}
	}
}

func TestCountTasks(t *testing.T) {
	got := CountTasks("## 1. A\n- [x] 1.1 a\n- [ ] 1.2 b\n```\n- [x] in fence\n```\n* [~] c\r\n")
	if want := (TaskProgress{Completed: 2, Total: 4}); got != want {
		t.Errorf("CountTasks = %+v, want %+v", got, want)
	}
	if s := got.String(); s != "2/4 tasks" {
		t.Errorf("String = %q", s)
	}
}

func FuzzParseTaskLine(f *testing.F) {
	for _, s := range []string{"- [ ] 1.1 a", "1) [x] b", "- [ ](x)", "\ufeff* [X] 2.3a c\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tl, ok := ParseTaskLine(line)
		if !ok {
			return
		}
		for _, want := range []bool{true, false} {
			out, ok := SetTaskChecked(line, want)
			if !ok {
				continue
			}
			got, ok := ParseTaskLine(out)
			if !ok || got.Checked != want || got.Text != tl.Text {
				t.Fatalf("SetTaskChecked(%q, %v) = %q, which parses as %+v", line, want, out, got)
			}
		}
	})
}
