package linediff

import (
	"strings"
	"testing"
)

// FuzzUnified checks that the diff of any two texts, applied to the old
// one, gives the new one, and that Match of their lines is a valid
// matching as long as the longest common subsequence (for small inputs,
// where the quadratic oracle is cheap). Run longer with:
//
//	go test ./internal/linediff -run '^$' -fuzz '^FuzzUnified$' -fuzztime 10m
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nx\nc\n")
	f.Add("", "a")
	f.Add("a\nb", "a\nb\n")
	f.Add("\n\nx\n\n", "\nx\n\n\n")
	f.Add("### Requirement: A\nA.\n\n### Requirement: B\nB.\n", "### Requirement: B\nB.\n\n### Requirement: A\nA.\n")
	f.Add("a\r\nb\r\n", "a\nb\r\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		d := Unified("a/x", "b/x", old, new)
		if got := apply(t, old, d); got != new {
			t.Fatalf("diff does not apply:\nold %q\nnew %q\ndiff:\n%s\ngot %q", old, new, d, got)
		}
		if old == new && d != "--- a/x\n+++ b/x\n" {
			t.Fatalf("equal texts gave hunks:\n%s", d)
		}
		a, b := Lines(old), Lines(new)
		ms := Match(a, b)
		checkMatch(t, a, b, ms)
		if len(a)*len(b) <= 1<<16 {
			if want := lcsLength(a, b); len(ms) != want {
				t.Fatalf("Match keeps %d lines, the longest common subsequence %d", len(ms), want)
			}
		}
		if strings.Join(a, "") != old {
			t.Fatalf("Lines(%q) = %q", old, a)
		}
	})
}
