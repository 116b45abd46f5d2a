package conflict_test

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

// mergeChunks joins what Chunks merges and counts the conflicting chunks.
func mergeChunks(base, left, right string) (string, int) {
	var b strings.Builder
	n := 0
	for _, c := range conflict.Chunks(conflict.SplitLines(base), conflict.SplitLines(left), conflict.SplitLines(right)) {
		if c.Kind == conflict.Conflicting {
			n++
			continue
		}
		b.WriteString(strings.Join(c.Merged(), ""))
	}
	return b.String(), n
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name              string
		base, left, right string
		want              string // the merged lines, conflicting chunks left out
		conflict          [3]string
	}{
		{name: "one side", base: "a\nb\nc\n", left: "a\nB\nc\n", right: "a\nb\nc\n", want: "a\nB\nc\n"},
		{name: "both sides apart", base: "a\nb\nc\nd\ne\n", left: "A\nb\nc\nd\ne\n", right: "a\nb\nc\nd\nE\n", want: "A\nb\nc\nd\nE\n"},
		{name: "same change", base: "a\nb\n", left: "a\nX\n", right: "a\nX\n", want: "a\nX\n"},
		{name: "conflict", base: "a\nb\nc\n", left: "a\nL\nc\n", right: "a\nR\nc\n", want: "a\nc\n", conflict: [3]string{"b\n", "L\n", "R\n"}},
		{name: "insert both at end", base: "a\n", left: "a\nL\n", right: "a\nR\n", want: "a\n", conflict: [3]string{"", "L\n", "R\n"}},
		{name: "delete and keep", base: "a\nb\nc\n", left: "a\nc\n", right: "a\nb\nc\n", want: "a\nc\n"},
		{name: "empty base", base: "", left: "x\n", right: "", want: "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := mergeChunks(tt.base, tt.left, tt.right)
			want := 0
			if tt.conflict != [3]string{} {
				want = 1
			}
			if got != tt.want || n != want {
				t.Errorf("merged %q with %d conflicts, want %q with %d", got, n, tt.want, want)
			}
			for _, c := range conflict.Chunks(conflict.SplitLines(tt.base), conflict.SplitLines(tt.left), conflict.SplitLines(tt.right)) {
				if c.Kind != conflict.Conflicting {
					continue
				}
				if v := [3]string{strings.Join(c.Base, ""), strings.Join(c.Left, ""), strings.Join(c.Right, "")}; v != tt.conflict {
					t.Errorf("conflicting chunk %q, want %q", v, tt.conflict)
				}
			}
		})
	}
}

func TestUnion(t *testing.T) {
	tests := []struct {
		sides []string
		want  string
	}{
		{[]string{"a\nb\n", "a\nc\n"}, "a\nb\nc\n"},
		{[]string{"x\n", "y\n", "z\n"}, "x\ny\nz\n"},
		{[]string{"a\nb\nc\n", "a\nc\n"}, "a\nb\nc\n"},
		{[]string{"last", "other\n"}, "last\nother\n"},
		{[]string{"", "a\n"}, "a\n"},
	}
	for _, tt := range tests {
		if got := conflict.Union(tt.sides, "\n"); got != tt.want {
			t.Errorf("Union(%q) = %q, want %q", tt.sides, got, tt.want)
		}
	}
}

func TestParseStrategy(t *testing.T) {
	for _, ok := range []string{"ours", "theirs", "base", "union", "tasks", "side=1", "side=12"} {
		s, err := conflict.ParseStrategy(ok)
		if err != nil || s.String() != ok {
			t.Errorf("ParseStrategy(%q) = %v, %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "mine", "side=0", "side=x", "side="} {
		if _, err := conflict.ParseStrategy(bad); err == nil {
			t.Errorf("ParseStrategy(%q) accepted", bad)
		}
	}
}

func TestResolveHunkRefusals(t *testing.T) {
	three := conflict.ParseString("<<<<<<< conflict 1 of 1\n+++++++ a\nA\n------- b\nB\n+++++++ c\nC\n------- b2\nB2\n+++++++ d\nD\n>>>>>>> conflict 1 of 1 ends\n")
	if len(three.Hunks) != 1 {
		t.Fatalf("parse: %v", three.Problems)
	}
	h := three.Hunks[0]
	tests := []struct {
		strategy string
		ok       bool
		text     string
		reason   string
	}{
		{"ours", false, "", "3 sides"},
		{"side=3", true, "D\n", ""},
		{"side=4", false, "", "no side 4"},
		{"base", false, "", "bases differ"},
		{"union", true, "A\nC\nD\n", ""},
		{"tasks", false, "", "two sides"},
	}
	for _, tt := range tests {
		s, _ := conflict.ParseStrategy(tt.strategy)
		text, ok, reason := conflict.ResolveHunk(h, s)
		if ok != tt.ok || text != tt.text || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s: got %q %v %q, want %q %v ~%q", tt.strategy, text, ok, reason, tt.text, tt.ok, tt.reason)
		}
	}
}
