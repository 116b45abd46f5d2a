package conflict_test

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

func TestMerge3(t *testing.T) {
	tests := []struct {
		name              string
		base, left, right string
		want              string
		conflicts         int
	}{
		{name: "one side", base: "a\nb\nc\n", left: "a\nB\nc\n", right: "a\nb\nc\n", want: "a\nB\nc\n"},
		{name: "both sides apart", base: "a\nb\nc\nd\ne\n", left: "A\nb\nc\nd\ne\n", right: "a\nb\nc\nd\nE\n", want: "A\nb\nc\nd\nE\n"},
		{name: "same change", base: "a\nb\n", left: "a\nX\n", right: "a\nX\n", want: "a\nX\n"},
		{name: "conflict", base: "a\nb\nc\n", left: "a\nL\nc\n", right: "a\nR\nc\n", conflicts: 1,
			want: "a\n<<<<<<< conflict 1 of 1\n%%%%%%% diff from: base\n\\\\\\\\\\\\\\        to: left\n-b\n+L\n+++++++ right\nR\n>>>>>>> conflict 1 of 1 ends\nc\n"},
		{name: "insert both at end", base: "a\n", left: "a\nL\n", right: "a\nR\n", conflicts: 1,
			want: "a\n<<<<<<< conflict 1 of 1\n%%%%%%% diff from: base\n\\\\\\\\\\\\\\        to: left\n+L\n+++++++ right\nR\n>>>>>>> conflict 1 of 1 ends\n"},
		{name: "delete and keep", base: "a\nb\nc\n", left: "a\nc\n", right: "a\nb\nc\n", want: "a\nc\n"},
		{name: "empty base", base: "", left: "x\n", right: "", want: "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := conflict.Merge3(tt.base, tt.left, tt.right, conflict.StyleDiff, conflict.Labels{Base: "base", Left: "left", Right: "right"})
			if r.Text != tt.want || r.Conflicts != tt.conflicts {
				t.Errorf("Merge3 = %q (%d conflicts), want %q (%d)", r.Text, r.Conflicts, tt.want, tt.conflicts)
			}
			if tt.conflicts > 0 {
				// jj and this package read the result back as the same three versions.
				f := conflict.ParseString(r.Text)
				bases, sides, ok := f.Versions()
				if !ok || bases[0] != tt.base || sides[0] != tt.left || sides[1] != tt.right {
					t.Errorf("Versions() = %q %q %v, want base %q and sides %q %q", bases, sides, ok, tt.base, tt.left, tt.right)
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
