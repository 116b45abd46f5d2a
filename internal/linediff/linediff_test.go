package linediff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// apply applies a diff made by Unified to old, reading only the hunks:
// it fails the test when a hunk's header, context or removed lines do
// not fit old.
func apply(t testing.TB, old, diff string) string {
	t.Helper()
	a := Lines(old)
	lines := Lines(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("no ---/+++ header in %q", diff)
	}
	var out []string
	ai, bi := 0, 0 // lines of old consumed; lines of new written
	for i := 2; i < len(lines); {
		var x, nx, y, ny int
		if !readHunkHeader(lines[i], &x, &nx, &y, &ny) {
			t.Fatalf("bad hunk header %q in\n%s", lines[i], diff)
		}
		if nx > 0 {
			x--
		}
		if ny > 0 {
			y--
		}
		if x < ai || x-ai != y-bi {
			t.Fatalf("hunk %q starts at old %d new %d after old %d new %d", lines[i], x, y, ai, bi)
		}
		out = append(out, a[ai:x]...)
		bi += x - ai
		ai = x
		seenA, seenB := 0, 0
		var last byte
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "@@ "); i++ {
			l := lines[i]
			if l == "\\ No newline at end of file\n" {
				switch {
				case last == '-':
				case len(out) > 0:
					out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				default:
					t.Fatalf("no-newline marker before any line in\n%s", diff)
				}
				continue
			}
			last = l[0]
			switch last {
			case ' ', '-':
				if ai >= len(a) || strings.TrimSuffix(a[ai], "\n") != strings.TrimSuffix(l[1:], "\n") {
					t.Fatalf("line %q does not match old line %d in\n%s", l, ai+1, diff)
				}
				if last == ' ' {
					out = append(out, a[ai])
					seenB++
				}
				ai++
				seenA++
			case '+':
				out = append(out, l[1:])
				seenB++
			default:
				t.Fatalf("bad line %q in\n%s", l, diff)
			}
		}
		if seenA != nx || seenB != ny {
			t.Fatalf("hunk -%d,%d +%d,%d holds %d old and %d new lines in\n%s", x, nx, y, ny, seenA, seenB, diff)
		}
		bi += seenB
	}
	return strings.Join(append(out, a[ai:]...), "")
}

// readHunkHeader reads "@@ -x[,nx] +y[,ny] @@\n" (an absent length is 1).
func readHunkHeader(h string, x, nx, y, ny *int) bool {
	var a, b string
	if _, err := fmt.Sscanf(h, "@@ -%s +%s @@\n", &a, &b); err != nil {
		return false
	}
	rng := func(s string, start, n *int) bool {
		*n = 1
		if i := strings.IndexByte(s, ','); i >= 0 {
			if _, err := fmt.Sscanf(s[i+1:], "%d", n); err != nil {
				return false
			}
			s = s[:i]
		}
		_, err := fmt.Sscanf(s, "%d", start)
		return err == nil
	}
	return rng(a, x, nx) && rng(b, y, ny)
}

// checkMatch fails the test unless ms pairs equal lines of a and b in
// increasing order.
func checkMatch[T comparable](t *testing.T, a, b []T, ms []Pair) {
	t.Helper()
	for k, p := range ms {
		if p.A < 0 || p.A >= len(a) || p.B < 0 || p.B >= len(b) || a[p.A] != b[p.B] {
			t.Fatalf("pair %d %v does not match equal lines of %v and %v", k, p, a, b)
		}
		if k > 0 && (p.A <= ms[k-1].A || p.B <= ms[k-1].B) {
			t.Fatalf("pairs %v and %v do not increase", ms[k-1], p)
		}
	}
}

// lcsLength is the length of a longest common subsequence, by the
// textbook quadratic table: the oracle Match's minimality is checked
// against, for small inputs only.
func lcsLength[T comparable](a, b []T) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestMatch(t *testing.T) {
	tests := []struct {
		a, b string
		want []Pair
	}{
		{"", "", nil},
		{"abc", "", nil},
		{"", "abc", nil},
		{"abc", "abc", []Pair{{0, 0}, {1, 1}, {2, 2}}},
		{"abc", "axc", []Pair{{0, 0}, {2, 2}}},
		{"abcd", "xbcy", []Pair{{1, 1}, {2, 2}}},
		// A removed run slides down as far as it goes: "x\n\n" then
		// "x\n\n" again, the second one removed, reads as the first kept.
		{"x_x_y", "x_y", []Pair{{0, 0}, {1, 1}, {4, 2}}},
		{"x_y", "x_x_y", []Pair{{0, 0}, {1, 1}, {2, 4}}},
		// Blank lines between requirements: the removed block is the
		// header and its text, then its blank line.
		{"_A_a_B_b", "_A_a_", []Pair{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}},
		{"_A_a_B_b", "_B_b", []Pair{{0, 0}, {5, 1}, {6, 2}, {7, 3}}},
	}
	for _, tt := range tests {
		a, b := strings.Split(tt.a, ""), strings.Split(tt.b, "")
		got := Match(a, b)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSlide: runs of deleted or inserted lines move down while the line
// after them equals their first, joining the runs they meet.
func TestSlide(t *testing.T) {
	tests := []struct {
		a, b      []string
		raw, want []Pair
	}{
		{ // the first of two "x", "" pairs removed reads as the second
			strings.Split("x_x_y", ""), strings.Split("x_y", ""),
			[]Pair{{2, 0}, {3, 1}, {4, 2}}, []Pair{{0, 0}, {1, 1}, {4, 2}}},
		{ // a removed requirement ends with its blank line
			[]string{"A\n", "a\n", "\n", "B\n", "b\n", "\n", "C\n"}, []string{"A\n", "a\n", "\n", "C\n"},
			[]Pair{{0, 0}, {1, 1}, {5, 2}, {6, 3}}, []Pair{{0, 0}, {1, 1}, {2, 2}, {6, 3}}},
		{ // two removed runs slide into one
			strings.Split("babacba", ""), strings.Split("bcb", ""),
			[]Pair{{2, 0}, {4, 1}, {5, 2}}, []Pair{{0, 0}, {4, 1}, {5, 2}}},
		{ // insertions slide the same way
			strings.Split("x_y", ""), strings.Split("x_x_y", ""),
			[]Pair{{0, 2}, {1, 3}, {2, 4}}, []Pair{{0, 0}, {1, 1}, {2, 4}}},
		{ // a run next to a change of the other side stays
			strings.Split("ab", ""), strings.Split("cab", ""),
			[]Pair{{0, 1}, {1, 2}}, []Pair{{0, 1}, {1, 2}}},
	}
	for _, tt := range tests {
		checkMatch(t, tt.a, tt.b, tt.raw)
		if got := slide(tt.a, tt.b, slices.Clone(tt.raw)); !slices.Equal(got, tt.want) {
			t.Errorf("slide(%q, %q, %v) = %v, want %v", tt.a, tt.b, tt.raw, got, tt.want)
		}
	}
}

// TestMatchIsLongest: over texts of a few repeated lines, what anchors
// alone cannot match, the matching is valid and as long as the longest
// common subsequence.
func TestMatchIsLongest(t *testing.T) {
	next := rng(1)
	for range 3000 {
		a, b := randomLines(next, 4, 25), randomLines(next, 4, 25)
		ms := Match(a, b)
		checkMatch(t, a, b, ms)
		if want := lcsLength(a, b); len(ms) != want {
			t.Fatalf("Match(%q, %q) keeps %d lines, the longest common subsequence %d", a, b, len(ms), want)
		}
	}
}

// TestMatchLarge: a region past maxCells is cut at the lines unique to
// both sides and each piece diffed; a large region without such a line
// stays unmatched; more distinct lines than runes leaves the middle
// unmatched. Each result is still a valid matching.
func TestMatchLarge(t *testing.T) {
	a := strings.Split("sxyxy0xyxy1xyxye", "")
	b := strings.Split("syxyx0yxyx1yxyxe", "")
	// "0" and "1" occur once in each side, in order: the anchors; the
	// pieces around them ("xyxy" against "yxyx", 16 cells) go to go-diff.
	got := match(a, b, maxIDs, 16)
	checkMatch(t, a, b, got)
	if len(got) != lcsLength(a, b) {
		t.Errorf("anchored match %v keeps %d lines, want %d", got, len(got), lcsLength(a, b))
	}
	for _, p := range []Pair{{5, 5}, {10, 10}} {
		if !slices.Contains(got, p) {
			t.Errorf("anchored match %v lacks anchor %v", got, p)
		}
	}
	// Pieces past the bound with no line once in each: unmatched.
	if got, want := match(a, b, maxIDs, 4), []Pair{{0, 0}, {5, 5}, {10, 10}, {15, 15}}; !slices.Equal(got, want) {
		t.Errorf("anchors only = %v, want %v", got, want)
	}
	// More distinct lines than ids: only the common ends match.
	a, b = strings.Split("sabce", ""), strings.Split("sbcde", "")
	if got, want := match(a, b, 3, maxCells), []Pair{{0, 0}, {4, 4}}; !slices.Equal(got, want) {
		t.Errorf("too many distinct lines: %v, want %v", got, want)
	}
	if got, want := match(a, b, 4, maxCells), []Pair{{0, 0}, {2, 1}, {3, 2}, {4, 4}}; !slices.Equal(got, want) {
		t.Errorf("distinct lines within ids: %v, want %v", got, want)
	}
}

// TestMatchSurrogates: lines numbered past the surrogate range still
// match exactly (they become runes above it).
func TestMatchSurrogates(t *testing.T) {
	n := surrogateStart + 100
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	b := slices.Clone(a)
	b[0], b[n-1] = -1, -2 // no common ends: every line goes to go-diff
	b = slices.Insert(b, n/2, -3)
	want := n - 2
	if got := Match(a, b); len(got) != want {
		t.Fatalf("Match keeps %d lines, want %d", len(got), want)
	} else {
		checkMatch(t, a, b, got)
	}
}

func TestUnified(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\n", "a\n", "--- a/x\n+++ b/x\n"},
		{"two hunks",
			"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n",
			"--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n"},
		{"hunks 6 lines apart are one",
			"a\nb\nc\nd\ne\nf\ng\nh\n", "A\nb\nc\nd\ne\nf\ng\nH\n",
			"--- a/x\n+++ b/x\n@@ -1,8 +1,8 @@\n-a\n+A\n b\n c\n d\n e\n f\n g\n-h\n+H\n"},
		{"new file", "", "a\nb\n", "--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\n", "", "--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-a\n"},
		{"newline added at end", "a\nb", "a\nb\n",
			"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"no newline at end", "a\nb\n", "a\nc",
			"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"},
		{"insertion after line 3", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nn\nd\ne\nf\ng\n",
			"--- a/x\n+++ b/x\n@@ -1,6 +1,7 @@\n a\n b\n c\n+n\n d\n e\n f\n"},
		{"a removed requirement ends with its blank line",
			"## Requirements\n\n### Requirement: A\nA.\n\n### Requirement: B\nB.\n\n### Requirement: C\nC.\n",
			"## Requirements\n\n### Requirement: A\nA.\n\n### Requirement: C\nC.\n",
			"--- a/x\n+++ b/x\n@@ -3,8 +3,5 @@\n ### Requirement: A\n A.\n \n-### Requirement: B\n-B.\n-\n ### Requirement: C\n C.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("a/x", "b/x", tt.old, tt.new)
			if got != tt.want {
				t.Errorf("Unified =\n%s\nwant\n%s", got, tt.want)
			}
			if back := apply(t, tt.old, got); back != tt.new {
				t.Errorf("applied to the old text it gives %q, want %q", back, tt.new)
			}
		})
	}
}

// TestUnifiedApplies: for random texts over a few repeated lines (blank
// lines, scenario lines) and a missing last newline, the diff applied to
// the old text gives the new one.
func TestUnifiedApplies(t *testing.T) {
	next := rng(2)
	pool := []string{"\n", "- **WHEN** asked\n", "- **THEN** answers\n", "#### Scenario: One\n", "x\n", "y\n"}
	text := func() string {
		var b strings.Builder
		for range next(30) {
			l := pool[next(len(pool))]
			if next(4) == 0 {
				l = fmt.Sprintf("unique %d\n", next(1000))
			}
			b.WriteString(l)
		}
		if next(3) == 0 {
			b.WriteString("no newline")
		}
		return b.String()
	}
	for range 2000 {
		old, new := text(), text()
		d := Unified("a/x", "b/x", old, new)
		if got := apply(t, old, d); got != new {
			t.Fatalf("diff does not apply:\nold %q\nnew %q\ndiff:\n%s\ngot %q", old, new, d, got)
		}
	}
}

// rng is a small deterministic generator: next(n) is in [0, n).
func rng(seed uint64) func(n int) int {
	return func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
}

// randomLines returns up to n lines drawn from k distinct ones.
func randomLines(next func(int) int, k, n int) []string {
	out := make([]string, next(n+1))
	for i := range out {
		out[i] = string(rune('a' + next(k)))
	}
	return out
}
