package conflict_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

// FuzzParse checks that Render(Parse(x)) == x for any input, that hunks
// cover exactly their lines, and that no strategy panics or rewrites a
// file it cannot read. Run longer with:
//
//	go test ./conflict -run '^$' -fuzz '^FuzzParse$' -fuzztime 10m
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.conflict"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("<<<<<<< a\nx\n=======\ny\n>>>>>>> b")
	f.Add("<<<<<<< a\r\nx\r\n||||||| o\r\n=======\r\n>>>>>>> b\r\n")
	f.Add("=======\n\x00")
	f.Fuzz(func(t *testing.T, in string) {
		file := conflict.ParseString(in)
		if got := string(file.Render()); got != in {
			t.Fatalf("Render(Parse(x)) = %q, want %q", got, in)
		}
		lines := conflict.SplitLines(in)
		for _, h := range file.Hunks {
			if h.StartLine < 1 || h.EndLine > len(lines) || h.StartLine >= h.EndLine {
				t.Fatalf("hunk %d spans lines %d-%d of %d", h.Index, h.StartLine, h.EndLine, len(lines))
			}
			if got := strings.Join(lines[h.StartLine-1:h.EndLine], ""); got != h.Raw() {
				t.Fatalf("hunk %d lines %d-%d are %q, Raw() is %q", h.Index, h.StartLine, h.EndLine, got, h.Raw())
			}
			if len(h.Sides) < 2 {
				t.Fatalf("hunk %d has %d sides", h.Index, len(h.Sides))
			}
		}
		for _, s := range []string{"ours", "theirs", "side=2", "base", "union", "tasks"} {
			st, _ := conflict.ParseStrategy(s)
			r := conflict.ResolveFile(file, st)
			if !file.Resolvable() && string(r.Content) != in {
				t.Fatalf("%s rewrote a file it cannot read", s)
			}
			if r.Changed && len(r.Resolved) == 0 {
				// Only tasks re-cuts hunks; it must leave less in conflict
				// (when the result reads back with the same markers: lines
				// of the file may look like shorter markers).
				after := conflict.ParseString(string(r.Content))
				if len(after.Hunks) > 0 && after.Hunks[0].MarkerLen == file.Hunks[0].MarkerLen &&
					len(after.Hunks) >= len(file.Hunks) && conflict.ConflictedLines(after) >= conflict.ConflictedLines(file) {
					t.Fatalf("%s rewrote the file without resolving anything: %q", s, r.Content)
				}
			}
		}
	})
}

// FuzzUnion checks that every line of every side survives a union, in
// its side's order. Run longer with:
//
//	go test ./conflict -run '^$' -fuzz '^FuzzUnion$' -fuzztime 10m
func FuzzUnion(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nx\nc\n", "b\n")
	f.Add("same\nsame\n", "same\n", "")
	f.Add("no end", "no end\n", "x\r\ny")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		sides := []string{a, b, c}
		u := conflict.Union(sides, "\n")
		got := trimEOLs(conflict.SplitLines(u))
		for i, s := range sides {
			if !isSubsequence(trimEOLs(conflict.SplitLines(s)), got) {
				t.Fatalf("side %d %q is not a subsequence of the union %q", i+1, s, u)
			}
		}
	})
}

func trimEOLs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSuffix(l, "\n")
	}
	return out
}

func isSubsequence(sub, seq []string) bool {
	i := 0
	for _, l := range seq {
		if i < len(sub) && sub[i] == l {
			i++
		}
	}
	return i == len(sub)
}

// FuzzMergeTasks checks that the tasks merge and the plain merge take the
// other side whole when one side did not change, and that a conflicted
// result reads back as that many two-sided hunks. Run longer with:
//
//	go test ./conflict -run '^$' -fuzz '^FuzzMergeTasks$' -fuzztime 10m
func FuzzMergeTasks(f *testing.F) {
	f.Add(tasksFile, edit("[ ] 1.1", "[x] 1.1"), edit("[ ] 1.2 ", "[x] 1.2 "))
	f.Add(tasksFile, edit("1.1 First", "1.1 Left"), edit("1.1 First", "1.1 Right"))
	f.Add("- [ ] a\n", "- [x] a", "")
	f.Fuzz(func(t *testing.T, base, left, right string) {
		if r := conflict.MergeTasks(base, base, right, conflict.TasksOptions{}); r.Text != right || len(r.Conflicts) > 0 {
			t.Fatalf("MergeTasks(b, b, r) = %q, want r = %q", r.Text, right)
		}
		if r := conflict.MergeTasks(base, left, base, conflict.TasksOptions{}); r.Text != left || len(r.Conflicts) > 0 {
			t.Fatalf("MergeTasks(b, l, b) = %q, want l = %q", r.Text, left)
		}
		if got, n := mergeChunks(base, base, right); got != right || n > 0 {
			t.Fatalf("Chunks(b, b, r) merges to %q with %d conflicts, want r = %q", got, n, right)
		}
		r := conflict.MergeTasks(base, left, right, conflict.TasksOptions{})
		if len(r.Conflicts) == 0 {
			return
		}
		if strings.Contains(base+left+right, "<<<<<<<") || strings.ContainsRune(base+left+right, 0) {
			return // marker-like lines (markers are sized for jj) or a binary file
		}
		file := conflict.ParseString(r.Text)
		if len(file.Hunks) != len(r.Conflicts) {
			t.Fatalf("%d conflicts reported, %d hunks read back from %q", len(r.Conflicts), len(file.Hunks), r.Text)
		}
		for _, h := range file.Hunks {
			if len(h.Sides) != 2 || len(h.Bases) != 1 {
				t.Fatalf("hunk %d has %d sides and %d bases", h.Index, len(h.Sides), len(h.Bases))
			}
		}
	})
}
