package testenv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/xec"
)

// Origin makes a bare repository ROOT/origin.git whose main holds files
// (path → content; none: an empty commit), pushed from a clone at
// ROOT/work that stays on main, and returns both paths. Branches are
// pushed too, each at main.
func Origin(t testing.TB, root string, files map[string]string, branches ...string) (origin, work string) {
	t.Helper()
	origin, work = filepath.Join(root, "origin.git"), filepath.Join(root, "work")
	Git(t, root, "init", "-q", "--bare", origin)
	Git(t, root, "clone", "-q", origin, work)
	for name, content := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, work, "add", "-A")
	Git(t, work, "commit", "-q", "--allow-empty", "-m", "base")
	push := []string{"push", "-q", "origin", "main"}
	for _, b := range branches {
		push = append(push, "main:"+b)
	}
	Git(t, work, push...)
	return origin, work
}

// Git runs git in dir, failing the test when it fails.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	if err := xec.Run(context.Background(), xec.Cmd{Name: "git", Args: args, Dir: dir}); err != nil {
		t.Fatal(err)
	}
}
