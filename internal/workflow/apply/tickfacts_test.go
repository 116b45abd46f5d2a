package apply

import "testing"

// TestTouchesNamed: a task is proven by a changed file it names, from
// the repository's root or from a project's subfolder; nothing else.
func TestTouchesNamed(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		files    []string
		prefix   string
		want     bool
	}{
		{"the file", []string{"src/export.ts"}, []string{"src/export.ts"}, "", true},
		{"another file", []string{"src/router.ts"}, []string{"src/export.ts", "openspec/changes/x/tasks.md"}, "", false},
		{"a folder", []string{"docs/**"}, []string{"docs/a/b.md"}, ".", true},
		{"no path named", nil, []string{"src/export.ts"}, "", false},
		{"nothing changed", []string{"src/export.ts"}, nil, "", false},
		{"from the project's folder", []string{"src/export.ts"}, []string{"app/src/export.ts"}, "app", true},
		{"from the root, project in a folder", []string{"app/src/export.ts"}, []string{"app/src/export.ts"}, "app", true},
		{"outside the project's folder", []string{"src/export.ts"}, []string{"other/src/export.ts"}, "app", false},
	}
	for _, tt := range tests {
		if got := touchesNamed(tt.patterns, tt.files, tt.prefix); got != tt.want {
			t.Errorf("%s: touchesNamed(%q, %q, %q) = %v, want %v", tt.name, tt.patterns, tt.files, tt.prefix, got, tt.want)
		}
	}
}
