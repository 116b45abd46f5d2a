package conflictcli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoPath(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "openspec", "changes")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	tests := []struct {
		cwd, arg, want string
		bad            bool
	}{
		{cwd: root, arg: "tasks.md", want: "tasks.md"},
		{cwd: sub, arg: "demo/tasks.md", want: "openspec/changes/demo/tasks.md"},
		{cwd: sub, arg: "../x.md", want: "openspec/x.md"},
		{cwd: outside, arg: "a/b.txt", want: "a/b.txt"}, // -R from elsewhere: from the root
		{cwd: root, arg: filepath.Join(root, "abs.txt"), want: "abs.txt"},
		{cwd: root, arg: "../escape.txt", bad: true},
		{cwd: root, arg: filepath.Join(outside, "f"), bad: true},
	}
	for _, tt := range tests {
		t.Chdir(tt.cwd)
		got, err := repoPath(root, tt.arg)
		if tt.bad {
			if err == nil {
				t.Errorf("repoPath(%q) from %s = %q, want an error", tt.arg, tt.cwd, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("repoPath(%q) from %s = %q, %v; want %q", tt.arg, tt.cwd, got, err, tt.want)
		}
	}
}
