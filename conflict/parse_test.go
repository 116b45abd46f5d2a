package conflict_test

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		hunks      int
		kinds      []string // problem kinds, in order
		resolvable bool
	}{
		{name: "plain text", in: "a\nb\n", resolvable: true},
		{name: "empty", in: "", resolvable: true},
		{name: "binary", in: "<<<<<<< a\nx\x00\n=======\ny\n>>>>>>> b\n", kinds: []string{conflict.ProblemBinary}},
		{name: "invalid utf8", in: "<<<<<<< a\n\xff\n=======\ny\n>>>>>>> b\n", hunks: 1, kinds: []string{conflict.ProblemInvalidUTF8}},
		{name: "unterminated", in: "a\n<<<<<<< a\nx\n=======\ny\n", kinds: []string{conflict.ProblemUnterminated}},
		{name: "stray separator", in: "Title\n=======\ntext\n", kinds: []string{conflict.ProblemStray}, resolvable: true},
		{name: "stray end", in: "a\n>>>>>>> b\n", kinds: []string{conflict.ProblemStray}, resolvable: true},
		{name: "no separator", in: "<<<<<<< a\nx\n>>>>>>> b\n", kinds: []string{conflict.ProblemMalformed}},
		{name: "two separators", in: "<<<<<<< a\nx\n=======\ny\n=======\nz\n>>>>>>> b\n", kinds: []string{conflict.ProblemMalformed}},
		{name: "opened twice", in: "<<<<<<< a\nx\n<<<<<<< a\ny\n=======\nz\n>>>>>>> b\n", hunks: 1, kinds: []string{conflict.ProblemUnterminated}},
		{name: "jj one side", in: "<<<<<<< conflict 1 of 1\n+++++++ a\nx\n>>>>>>> conflict 1 of 1 ends\n", kinds: []string{conflict.ProblemMalformed}},
		{name: "jj bad diff line", in: "<<<<<<< conflict 1 of 1\n%%%%%%% diff from: a\nx\n+++++++ b\ny\n>>>>>>> conflict 1 of 1 ends\n", kinds: []string{conflict.ProblemMalformed}},
		{name: "jj note out of place", in: "<<<<<<< c\n+++++++ a\nx\n\\\\\\\\\\\\\\ to: b\n------- b\ny\n+++++++ c\nz\n>>>>>>> e\n", kinds: []string{conflict.ProblemMalformed}},
		{name: "short markers are text", in: "<<<<<< a\nx\n====== \ny\n>>>>>> b\n", resolvable: true},
		{name: "marker needs a space", in: "<<<<<<<a\nx\n=======\ny\n>>>>>>>b\n", kinds: []string{conflict.ProblemStray}, resolvable: true},
		{name: "git two sides", in: "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n", hunks: 1, resolvable: true},
		{name: "git empty left", in: "<<<<<<< HEAD\n=======\ny\n>>>>>>> b\n", hunks: 1, resolvable: true},
		{name: "no final newline after end marker", in: "<<<<<<< HEAD\nx\n\n=======\ny\n\n>>>>>>> b", hunks: 1, resolvable: true},
		{name: "crlf", in: "a\r\n<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\nz", hunks: 1, resolvable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := conflict.ParseString(tt.in)
			if got := string(f.Render()); got != tt.in {
				t.Fatalf("Render(Parse(x)) = %q, want %q", got, tt.in)
			}
			if len(f.Hunks) != tt.hunks {
				t.Errorf("hunks = %d, want %d", len(f.Hunks), tt.hunks)
			}
			var kinds []string
			for _, p := range f.Problems {
				kinds = append(kinds, p.Kind)
				if p.Message == "" {
					t.Errorf("problem %s has no message", p.Kind)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Errorf("problems = %v, want kinds %v", f.Problems, tt.kinds)
			}
			if f.Resolvable() != tt.resolvable {
				t.Errorf("Resolvable() = %v, want %v", f.Resolvable(), tt.resolvable)
			}
			// Whatever the input, resolving never loses it when the file
			// is not resolvable.
			for _, s := range []string{"ours", "union", "tasks"} {
				st, _ := conflict.ParseStrategy(s)
				r := conflict.ResolveFile(f, st)
				if !f.Resolvable() && (string(r.Content) != tt.in || r.Changed) {
					t.Errorf("%s rewrote an unresolvable file: %q", s, r.Content)
				}
			}
		})
	}
}

func TestParseNoFinalNewline(t *testing.T) {
	// jj's form when a side lacks the final newline: every term ends with
	// a separator line end and the closing marker has none.
	in := "a\n<<<<<<< HEAD\nx\n=======\ny\n\n>>>>>>> b"
	f := conflict.ParseString(in)
	if len(f.Hunks) != 1 {
		t.Fatalf("hunks = %d: %v", len(f.Hunks), f.Problems)
	}
	h := f.Hunks[0]
	if h.Sides[0].Text != "x" || h.Sides[1].Text != "y\n" {
		t.Errorf("sides = %q, %q; want %q, %q", h.Sides[0].Text, h.Sides[1].Text, "x", "y\n")
	}
	r := conflict.ResolveFile(f, conflict.Strategy{Kind: conflict.Ours})
	if got := string(r.Content); got != "a\nx" {
		t.Errorf("ours = %q, want %q", got, "a\nx")
	}
}

func TestParseLabel(t *testing.T) {
	tests := []struct {
		in   string
		want conflict.Label
	}{
		{`rqyqzqzm 5ed0237a "B" (squashed revision)`, conflict.Label{ChangeID: "rqyqzqzm", CommitID: "5ed0237a", Description: "B", Note: "squashed revision"}},
		{`xwxnrppu 168060af "say "hi" \ there"`, conflict.Label{ChangeID: "xwxnrppu", CommitID: "168060af", Description: `say "hi" \ there`}},
		{`umqqrmmt e6f1fc84 "base" (no terminating newline)`, conflict.Label{ChangeID: "umqqrmmt", CommitID: "e6f1fc84", Description: "base", NoFinalNewline: true}},
		{`HEAD`, conflict.Label{}},
		{`side #1`, conflict.Label{}},
		{``, conflict.Label{}},
	}
	for _, tt := range tests {
		got := conflict.ParseLabel(tt.in)
		tt.want.Text = tt.in
		if got != tt.want {
			t.Errorf("ParseLabel(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestMaterializeRoundTrip(t *testing.T) {
	sides := []conflict.Term{
		{Label: conflict.ParseLabel("left"), Text: "a\nb\n"},
		{Label: conflict.ParseLabel("right"), Text: "a\nc\n=======\n"},
		{Label: conflict.ParseLabel("third"), Text: ""},
	}
	bases := []conflict.Term{
		{Label: conflict.ParseLabel("base"), Text: "a\n"},
		{Label: conflict.ParseLabel("base 2"), Text: "z\n"},
	}
	for _, tc := range []struct {
		style conflict.Style
		sides int
	}{{conflict.StyleDiff, 3}, {conflict.StyleSnapshot, 3}, {conflict.StyleGit, 2}, {conflict.StyleDiff, 2}} {
		s, b := sides[:tc.sides], bases[:tc.sides-1]
		var texts []string
		for _, t := range append(append([]conflict.Term{}, s...), b...) {
			texts = append(texts, t.Text)
		}
		n := conflict.MarkerLenFor(texts...)
		text := "before\n" + conflict.Materialize(s, b, tc.style, n, "conflict 1 of 1", "\n") + "after\n"
		f := conflict.ParseString(text)
		if len(f.Hunks) != 1 {
			t.Fatalf("%s: hunks = %d in %q: %v", tc.style, len(f.Hunks), text, f.Problems)
		}
		h := f.Hunks[0]
		if h.MarkerLen != n || h.Style != tc.style {
			t.Errorf("%s: marker len %d style %s, want %d", tc.style, h.MarkerLen, h.Style, n)
		}
		for i := range s {
			if h.Sides[i].Text != s[i].Text || h.Sides[i].Label.Text != s[i].Label.Text {
				t.Errorf("%s: side %d = %+v, want %+v", tc.style, i+1, h.Sides[i], s[i])
			}
		}
		for i := range b {
			if h.Bases[i].Text != b[i].Text {
				t.Errorf("%s: base %d = %q, want %q", tc.style, i+1, h.Bases[i].Text, b[i].Text)
			}
		}
	}
}

func TestParseOlderJJLabels(t *testing.T) {
	// jj before 0.2x wrote "Changes from base to side #1" and "Contents of
	// side #2" without the "to:" line.
	in := "x\n<<<<<<< Conflict 1 of 1\n%%%%%%% Changes from base to side #1\n-a\n+b\n+++++++ Contents of side #2\nc\n>>>>>>> Conflict 1 of 1 ends\n"
	f := conflict.ParseString(in)
	if len(f.Hunks) != 1 {
		t.Fatalf("hunks = %d: %v", len(f.Hunks), f.Problems)
	}
	h := f.Hunks[0]
	if h.Style != conflict.StyleDiff || h.Bases[0].Label.Text != "base" || h.Sides[0].Label.Text != "side #1" || h.Sides[1].Label.Text != "Contents of side #2" {
		t.Errorf("labels: base %q sides %q %q", h.Bases[0].Label.Text, h.Sides[0].Label.Text, h.Sides[1].Label.Text)
	}
	if h.Bases[0].Text != "a\n" || h.Sides[0].Text != "b\n" || h.Sides[1].Text != "c\n" {
		t.Errorf("texts: %q %q %q", h.Bases[0].Text, h.Sides[0].Text, h.Sides[1].Text)
	}
}
