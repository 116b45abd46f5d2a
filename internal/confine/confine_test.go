package confine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestPath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("docs/a.md")
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("secret\n"), 0o644)
	link("docs", "alias")                               // inside, relative
	link(filepath.Join(root, "docs", "a.md"), "a.md")   // inside, absolute
	link(outside, "out")                                // a directory outside
	link(filepath.Join(outside, "f.txt"), "f.txt")      // a file outside
	link("../"+filepath.Base(outside)+"/new", "dangle") // dangling, outside
	link("alias/../..", "up")                           // resolves to root's parent
	link("loop", "loop")
	realRoot, _ := filepath.EvalSymlinks(root)
	tests := []struct {
		rel, want string // want: the real path relative to root
		link      string
	}{
		{rel: "docs/a.md", want: "docs/a.md"},
		{rel: "alias/a.md", want: "docs/a.md"},
		{rel: "a.md", want: "docs/a.md"},
		{rel: "docs/new/b.md", want: "docs/new/b.md"}, // not there yet
		{rel: "out/f.txt", link: "out"},
		{rel: "out", link: "out"},
		{rel: "f.txt", link: "f.txt"},
		{rel: "dangle", link: "dangle"},
		{rel: "up/x", link: "up"},
		{rel: "../x", link: ".."},
	}
	for _, tt := range tests {
		got, err := Path(root, tt.rel)
		if tt.link != "" {
			var esc *EscapeError
			if !errors.As(err, &esc) || esc.Link != tt.link {
				t.Errorf("Path(%q) = %q, %v; want an escape through %q", tt.rel, got, err, tt.link)
			} else if !strings.Contains(err.Error(), tt.link) || (tt.link != ".." && !strings.Contains(err.Error(), esc.Target)) {
				t.Errorf("Path(%q) error %q does not name the link and its target", tt.rel, err)
			}
			continue
		}
		if want := filepath.Join(realRoot, tt.want); err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v; want %q", tt.rel, got, err, want)
		}
	}
	if _, err := Path(root, "loop/x"); err == nil {
		t.Error("Path through a symlink loop succeeded")
	}
}

func TestRegularFile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("x\n"), 0o644)
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RegularFile(root, "f.txt"); err != nil {
		t.Errorf("RegularFile(f.txt) = %v", err)
	}
	for _, rel := range []string{"dir", "fifo", "missing"} {
		_, err := RegularFile(root, rel)
		if err == nil || !strings.Contains(err.Error(), rel) {
			t.Errorf("RegularFile(%q) = %v, want an error naming it", rel, err)
		}
	}
}

// RegularFile refuses what is not a regular file with a *NotRegularError
// that says what is there.
func TestRegularFileRefusesADirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := RegularFile(root, "docs")
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Path != "docs" || !nr.Mode.IsDir() {
		t.Fatalf("RegularFile(docs) = %v; want a *NotRegularError for the directory", err)
	}
	if want := "docs is a directory, not a regular file: refusing to open it"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestRemoveUnder(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	mkdir := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	victim := mkdir(filepath.Join(base, "victim"))
	sibling := mkdir(dir + "-sibling") // shares dir's prefix
	task := mkdir(filepath.Join(dir, "task-1"))
	deep := mkdir(filepath.Join(dir, "a", "b"))
	if err := os.Symlink(base, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	refused := []string{
		filepath.Join(dir, "..", "victim"),
		sibling,
		dir,
		dir + "/",
		filepath.Join(dir, "up", "victim"), // through a link on the way
		"relative/path",
	}
	for _, p := range refused {
		err := RemoveUnder(dir, p)
		if err == nil || !strings.Contains(err.Error(), "not removed") {
			t.Errorf("RemoveUnder(%s): %v, want a refusal saying not removed", p, err)
		}
	}
	for _, p := range []string{victim, sibling, dir} {
		if _, err := os.Stat(filepath.Join(p)); err != nil {
			t.Errorf("%s: %v: a refused removal removed it", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(victim, "sub", "f")); err != nil {
		t.Errorf("the victim's file: %v", err)
	}
	for _, p := range []string{task, deep, filepath.Join(dir, "up"), filepath.Join(dir, "gone")} {
		if err := RemoveUnder(dir, p); err != nil {
			t.Errorf("RemoveUnder(%s): %v", p, err)
		}
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "victim", "sub", "f")); err != nil {
		t.Errorf("removing the link up removed what it points to: %v", err)
	}
}
