package conflict_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

// cleanText returns about size bytes of source-like lines, no markers.
func cleanText(size int) string {
	var b strings.Builder
	b.Grow(size + 100)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\tvalue%d := compute(ctx, %d) // line %d of the file\n", i%97, i, i)
	}
	return b.String()
}

// conflictedText returns about size bytes with hunks jj diff-style hunks
// spread evenly through it.
func conflictedText(size, hunks int) string {
	chunk := cleanText(size / hunks)
	var b strings.Builder
	b.Grow(size + hunks*300)
	for i := 0; i < hunks; i++ {
		b.WriteString(chunk)
		fmt.Fprintf(&b, "<<<<<<< conflict %d of %d\n%%%%%%%%%%%%%% diff from: base\n\\\\\\\\\\\\\\        to: left\n-old %d\n+left %d\n+++++++ right\nright %d\n>>>>>>> conflict %d of %d ends\n", i+1, hunks, i, i, i, i+1, hunks)
	}
	return b.String()
}

func BenchmarkParseClean50MB(b *testing.B) {
	s := cleanText(50 << 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if f := conflict.ParseString(s); len(f.Hunks) != 0 {
			b.Fatal("found hunks in clean text")
		}
	}
}

func BenchmarkParse50MB10000Hunks(b *testing.B) {
	s := conflictedText(50<<20, 10000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if f := conflict.ParseString(s); len(f.Hunks) != 10000 {
			b.Fatalf("found %d hunks, want 10000", len(f.Hunks))
		}
	}
}

// tasksDoc returns a tasks.md with n tasks in groups of ten, with the
// tasks for which tick returns true ticked.
func tasksDoc(n int, tick func(i int) bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		g, t := i/10+1, i%10+1
		if t == 1 {
			fmt.Fprintf(&b, "\n## %d. Group %d\n", g, g)
		}
		box := " "
		if tick(i) {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %d.%d Do task number %d of the plan\n", box, g, t, i)
	}
	return b.String()
}

// BenchmarkMergeTasks10000 reconciles a 10,000-task file where one side
// ticked every even task and the other every odd one: every line differs.
func BenchmarkMergeTasks10000(b *testing.B) {
	base := tasksDoc(10000, func(int) bool { return false })
	left := tasksDoc(10000, func(i int) bool { return i%2 == 0 })
	right := tasksDoc(10000, func(i int) bool { return i%2 == 1 })
	want := tasksDoc(10000, func(int) bool { return true })
	b.SetBytes(int64(len(base)))
	for b.Loop() {
		r := conflict.MergeTasks(base, left, right, conflict.TasksOptions{})
		if r.Text != want || len(r.Conflicts) > 0 {
			b.Fatal("the merge did not tick every task")
		}
	}
}

// BenchmarkMergeTasks10000Moved is the general path: one side also adds a
// task, so the versions no longer line up and are diffed.
func BenchmarkMergeTasks10000Moved(b *testing.B) {
	base := tasksDoc(10000, func(int) bool { return false })
	left := strings.Replace(tasksDoc(10000, func(i int) bool { return i%2 == 0 }), "\n## 500.", "- [ ] 499.11 An added task\n\n## 500.", 1)
	right := tasksDoc(10000, func(i int) bool { return i%2 == 1 })
	want := strings.Replace(tasksDoc(10000, func(int) bool { return true }), "\n## 500.", "- [ ] 499.11 An added task\n\n## 500.", 1)
	b.SetBytes(int64(len(base)))
	for b.Loop() {
		r := conflict.MergeTasks(base, left, right, conflict.TasksOptions{})
		if r.Text != want || len(r.Conflicts) > 0 {
			b.Fatal("the merge did not tick every task and keep the new one")
		}
	}
}
