package engine

import (
	"reflect"
	"testing"
)

func TestAddedSymbols(t *testing.T) {
	diff := `diff --git a/src/a.go b/src/a.go
--- a/src/a.go
+++ b/src/a.go
@@ -1,3 +1,9 @@
 package a
+func Exported(x int) int { return x }
+func (s *Server) Handle() {}
+type Config struct{}
-func Removed() {}
 func Unchanged() {}
+	// func inComment: a comment, not a declaration
diff --git a/web/b.ts b/web/b.ts
--- /dev/null
+++ b/web/b.ts
@@ -0,0 +1,4 @@
+export function render() {}
+export const LIMIT = 3;
+class Widget {}
+export async function load() {}
diff --git a/x.py b/x.py
+++ b/x.py
+def helper():
+    return 1
`
	got := addedSymbols(diff)
	want := map[string][]string{
		"src/a.go": {"Exported", "Handle", "Config"},
		"web/b.ts": {"render", "LIMIT", "Widget", "load"},
		"x.py":     {"helper"},
	}
	for f, w := range want {
		if !reflect.DeepEqual(got[f], w) {
			t.Errorf("%s: %v, want %v", f, got[f], w)
		}
	}
}

func TestBatch(t *testing.T) {
	mk := func(lines ...int) []*TaskState {
		var ts []*TaskState
		for i, l := range lines {
			ts = append(ts, &TaskState{Task: Task{Num: i + 1}, Lines: l})
		}
		return ts
	}
	sizes := func(bs [][]*TaskState) []int {
		var r []int
		for _, b := range bs {
			r = append(r, len(b))
		}
		return r
	}
	tests := []struct {
		name  string
		lines []int
		want  []int
	}{
		{"small wave: one reviewer", []int{10, 20, 30}, []int{3}},
		{"600 lines over 3 tasks: two reviewers", []int{200, 200, 200}, []int{2, 1}},
		{"one big task alone", []int{900, 10, 10}, []int{1, 2}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		if got := sizes(batch(mk(tt.lines...), 300)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: batches %v, want %v", tt.name, got, tt.want)
		}
	}
}
