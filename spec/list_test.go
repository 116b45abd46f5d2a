package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestListChangesSideBySide: changes are read concurrently, yet the
// result is the same as one by one: every change summarised, in order,
// and of several broken changes the first in name order is reported.
func TestListChangesSideBySide(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"openspec/config.yaml": "schema: spec-driven\n"}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		files["openspec/changes/"+n+"/proposal.md"] = "## Why\nx\n"
		files["openspec/changes/"+n+"/tasks.md"] = "## 1. G\n- [x] 1.1 one\n- [ ] 1.2 two\n"
	}
	writeFiles(t, dir, files)
	r := Root{Dir: dir}
	got, err := r.ListChanges(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 12 || got[0].Name != "a" || got[11].Name != "l" {
		t.Fatalf("ListChanges = %+v", got)
	}
	for _, c := range got {
		if c.CompletedTasks != 1 || c.TotalTasks != 2 || c.Status != "in-progress" {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}

	// tasks.md as a directory cannot be read: c and h are broken.
	for _, n := range []string{"h", "c"} {
		p := filepath.Join(dir, "openspec", "changes", n, "tasks.md")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		_, err := r.ListChanges(false)
		if err == nil || !strings.Contains(err.Error(), filepath.Join("changes", "c", "tasks.md")) {
			t.Fatalf("ListChanges with c and h broken: %v, want the error of c", err)
		}
	}
}

// TestSchemaMemo: a memoized root reads config.yaml and a schema once; a
// plain root reads them every time, so an edit is seen by the next command.
func TestSchemaMemo(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"openspec/config.yaml": "schema: one\n"})
	plain := Root{Dir: dir}
	memo := plain.memoized()
	schema := func(r Root) string {
		t.Helper()
		c, err := r.readProjectConfig()
		if err != nil {
			t.Fatal(err)
		}
		return c.schema
	}
	if schema(plain) != "one" || schema(memo) != "one" {
		t.Fatal("config schema not read")
	}
	writeFiles(t, dir, map[string]string{"openspec/config.yaml": "schema: two\n"})
	if got := schema(plain); got != "two" {
		t.Errorf("plain root after an edit = %q, want two", got)
	}
	if got := schema(memo); got != "one" {
		t.Errorf("memoized root after an edit = %q, want the remembered one", got)
	}
	if _, err := memo.LoadSchema("missing"); err == nil {
		t.Fatal("LoadSchema(missing): no error")
	}
	writeFiles(t, dir, map[string]string{"openspec/schemas/missing/schema.yaml": "artifacts:\n  - id: tasks\n    generates: tasks.md\n"})
	if _, err := memo.LoadSchema("missing"); err == nil {
		t.Error("memoized LoadSchema read the schema again")
	}
	if s, err := plain.LoadSchema("missing"); err != nil || s.Artifacts[0].ID != "tasks" {
		t.Errorf("plain LoadSchema = %+v, %v", s, err)
	}
}
