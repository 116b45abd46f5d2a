package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a small tree: a/spec.md and b/spec.md exist, c/spec.md is to
// be created, and change/ moves to archive/x.
type fixture struct {
	root, dir string
	in        Intent
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{root: root, dir: filepath.Join(root, "ledger", "archive-journal")}
	for _, p := range []string{"a/spec.md", "b/spec.md", "change/tasks.md"} {
		writeFile(t, filepath.Join(root, p), "old "+p+"\n")
	}
	f.in = Intent{What: `archive of "x"`, Move: Move{From: filepath.Join(root, "change"), To: filepath.Join(root, "archive", "x"), ShowFrom: "change", ShowTo: "archive/x"}}
	for _, p := range []string{"a/spec.md", "b/spec.md", "c/d/spec.md"} {
		w := Write{Path: filepath.Join(root, p), Show: p, New: []byte("new " + p + "\n"), Mode: 0o644}
		if b, err := os.ReadFile(w.Path); err == nil {
			w.Exists, w.Old = true, b
		}
		f.in.Writes = append(f.in.Writes, w)
	}
	return f
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree maps every file under root (but the ledger) to its content, and
// every directory to "/".
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "ledger" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			m[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected", k)
		}
	}
}

func TestRunWritesMovesAndForgets(t *testing.T) {
	f := newFixture(t)
	if err := Run(f.dir, f.in); err != nil {
		t.Fatal(err)
	}
	got := tree(t, f.root)
	for _, p := range []string{"a/spec.md", "b/spec.md", "c/d/spec.md"} {
		if got[p] != "new "+p+"\n" {
			t.Errorf("%s = %q", p, got[p])
		}
	}
	if got["archive/x/tasks.md"] != "old change/tasks.md\n" || got["change"] != "" {
		t.Errorf("change not moved: %v", got)
	}
	if _, err := os.Stat(f.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left behind: %v", err)
	}
}

func TestRunRefusesAFileChangedSinceRead(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.root, "b/spec.md"), "edited by someone else\n")
	before := tree(t, f.root)
	err := Run(f.dir, f.in)
	var ce *ChangedError
	if !errors.As(err, &ce) || !errors.Is(err, ErrChanged) || strings.Join(ce.Paths, ",") != "b/spec.md" {
		t.Fatalf("got %v, want a *ChangedError naming b/spec.md", err)
	}
	if !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("message: %v", err)
	}
	sameTree(t, tree(t, f.root), before)
	if Pending(f.dir) {
		t.Error("journal left behind")
	}
}

// TestRollbackMessage makes a write fail part-way (and, in one case, the
// restore of an earlier file too): the error names what was restored and
// what could not be, and never reports a failed rollback for an intact
// tree.
func TestRollbackMessage(t *testing.T) {
	tests := []struct {
		name       string
		failWrite  string // Show of the write that fails
		failReturn string // Show of the file whose restore fails too
		want       []string
		notWant    []string
		kept       bool
	}{
		{
			name:      "second write fails",
			failWrite: "b/spec.md",
			want:      []string{`write b/spec.md: disk on fire`, "restored a/spec.md; the tree is as it was"},
			notWant:   []string{"could not", "b/spec.md;", "rollback"},
		},
		{
			name:      "first write fails",
			failWrite: "a/spec.md",
			want:      []string{"nothing had been written: the tree is as it was"},
			notWant:   []string{"could not", "restored"},
		},
		{
			name:      "a created file is removed again",
			failWrite: "move",
			want:      []string{"restored b/spec.md, a/spec.md; removed c/d/spec.md, which it had created; the tree is as it was"},
			notWant:   []string{"could not"},
		},
		{
			name:       "a restore fails too",
			failWrite:  "c/d/spec.md",
			failReturn: "a/spec.md",
			want:       []string{"restored b/spec.md; could not restore, so left with the new content: a/spec.md (disk on fire); the journal", "the next jj-openspec command finishes the archive of \"x\""},
			kept:       true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			before := tree(t, f.root)
			if tt.failWrite == "move" {
				// the destination appears before the move
				writeFile(t, filepath.Join(f.root, "archive/x/taken"), "")
				before = tree(t, f.root)
			}
			undoing := false
			orig := replaceFile
			t.Cleanup(func() { replaceFile = orig })
			replaceFile = func(path string, data []byte, mode fs.FileMode) error {
				rel, _ := filepath.Rel(f.root, path)
				if rel == tt.failWrite || (undoing && rel == tt.failReturn) {
					undoing = true
					return errors.New("disk on fire")
				}
				return orig(path, data, mode)
			}
			err := Run(f.dir, f.in)
			var re *RollbackError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *RollbackError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("message has %q:\n%v", w, err)
				}
			}
			if Pending(f.dir) != tt.kept {
				t.Errorf("journal kept: %v, want %v", Pending(f.dir), tt.kept)
			}
			if !tt.kept {
				sameTree(t, tree(t, f.root), before)
				return
			}
			// the kept journal rolls forward once the cause is gone
			replaceFile = orig
			rec, err := Recover(f.dir)
			if err != nil || rec == nil || !rec.Moved {
				t.Fatalf("recover: %+v %v", rec, err)
			}
			want := newFixture(t)
			if err := Run(want.dir, want.in); err != nil {
				t.Fatal(err)
			}
			sameTree(t, tree(t, f.root), tree(t, want.root))
		})
	}
}

// interrupt leaves the fixture as a process killed after n writes would.
func interrupt(t *testing.T, f *fixture, n int) {
	t.Helper()
	if err := commit(f.dir, f.in); err != nil {
		t.Fatal(err)
	}
	for _, w := range f.in.Writes[:n] {
		if _, err := put(w.Path, w.New, w.Mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecoverRollsForward(t *testing.T) {
	want := newFixture(t)
	if err := Run(want.dir, want.in); err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= 3; n++ {
		f := newFixture(t)
		interrupt(t, f, n)
		rec, err := Recover(f.dir)
		if err != nil {
			t.Fatalf("after %d writes: %v", n, err)
		}
		if len(rec.Written) != 3-n || !rec.Moved {
			t.Errorf("after %d writes: recovered %+v", n, rec)
		}
		sameTree(t, tree(t, f.root), tree(t, want.root))
		if Pending(f.dir) {
			t.Error("journal left behind")
		}
	}
	// killed after the move, before the journal went
	f := newFixture(t)
	interrupt(t, f, 3)
	if err := move(f.in.Move); err != nil {
		t.Fatal(err)
	}
	if rec, err := Recover(f.dir); err != nil || rec.Moved || len(rec.Written) != 0 {
		t.Errorf("after the move: %+v %v", rec, err)
	}
	sameTree(t, tree(t, f.root), tree(t, want.root))
}

// TestRecoverRemovesHalfWrittenTemps: a kill -9 inside a target's
// atomic write leaves renameio's temporary file (".spec.md" and random
// digits) beside it; recovery removes it, and nothing else.
func TestRecoverRemovesHalfWrittenTemps(t *testing.T) {
	want := newFixture(t)
	if err := Run(want.dir, want.in); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	interrupt(t, f, 1)
	target := f.in.Writes[1].Path
	temp := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+"557911728")
	writeFile(t, temp, "half written")
	keep := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+"-notes")
	writeFile(t, keep, "a user's file")
	writeFile(t, filepath.Join(filepath.Dir(want.in.Writes[1].Path), filepath.Base(keep)), "a user's file")
	if _, err := Recover(f.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(temp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file %s left behind (%v)", temp, err)
	}
	sameTree(t, tree(t, f.root), tree(t, want.root))
}

func TestRecoverRefusesFilesChangedSince(t *testing.T) {
	f := newFixture(t)
	interrupt(t, f, 1)
	writeFile(t, filepath.Join(f.root, "b/spec.md"), "edited meanwhile\n")
	before := tree(t, f.root)
	_, err := Recover(f.dir)
	var ce *ChangedError
	if !errors.As(err, &ce) || strings.Join(ce.Paths, ",") != "b/spec.md" {
		t.Fatalf("got %v, want a *ChangedError naming b/spec.md", err)
	}
	for _, w := range []string{"cannot finish the interrupted archive of \"x\"", "1 file changed on disk since it began", "b/spec.md", "or remove " + f.dir} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %v", w, err)
		}
	}
	sameTree(t, tree(t, f.root), before)
	if !Pending(f.dir) {
		t.Error("journal removed")
	}
}

func TestRecoverDiscardsAnUncommittedJournal(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.dir, contentFile), "partial")
	before := tree(t, f.root)
	rec, err := Recover(f.dir)
	if rec != nil || err != nil {
		t.Fatalf("got %+v %v", rec, err)
	}
	if _, err := os.Stat(f.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Error("leftover not removed")
	}
	sameTree(t, tree(t, f.root), before)
}

// deleteFixture is fixture with a/spec.md deleted instead of rewritten
// (a retired capability): its folder a/ goes with it.
func deleteFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.in.Writes[0].Delete, f.in.Writes[0].New = true, nil
	return f
}

// TestDelete: a deletion removes the file and its emptied folder; a later
// failed write restores both; an interrupted run rolls it forward.
func TestDelete(t *testing.T) {
	f := deleteFixture(t)
	if err := Run(f.dir, f.in); err != nil {
		t.Fatal(err)
	}
	want := tree(t, f.root)
	if _, ok := want["a/spec.md"]; ok {
		t.Fatalf("a/spec.md not deleted: %v", want)
	}
	if _, ok := want["a"]; ok {
		t.Errorf("emptied folder a/ left: %v", want)
	}
	if want["b/spec.md"] != "new b/spec.md\n" {
		t.Errorf("b/spec.md = %q", want["b/spec.md"])
	}

	// a later write fails: the deleted file and its folder come back
	g := deleteFixture(t)
	before := tree(t, g.root)
	orig := replaceFile
	t.Cleanup(func() { replaceFile = orig })
	replaceFile = func(path string, data []byte, mode fs.FileMode) error {
		if strings.HasSuffix(path, filepath.Join("b", "spec.md")) && string(data) == "new b/spec.md\n" {
			return errors.New("disk full")
		}
		return orig(path, data, mode)
	}
	err := Run(g.dir, g.in)
	var rb *RollbackError
	if !errors.As(err, &rb) || strings.Join(rb.Restored, ",") != "a/spec.md" || len(rb.Failed) > 0 {
		t.Fatalf("got %v, want a rollback restoring a/spec.md", err)
	}
	sameTree(t, tree(t, g.root), before)
	replaceFile = orig

	// killed before and after the deletion: recovery finishes it
	for n := 0; n <= 1; n++ {
		h := deleteFixture(t)
		if err := commit(h.dir, h.in); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			if _, err := remove(h.in.Writes[0].Path); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Recover(h.dir); err != nil {
			t.Fatalf("after %d steps: %v", n, err)
		}
		sameTree(t, tree(t, h.root), want)
	}
}
