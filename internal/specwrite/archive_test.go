package specwrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/spec"
)

// newArchivable makes a project with change "c": one unchecked task and
// a delta adding capability "cap".
func newArchivable(t *testing.T) spec.Root {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the project is in no repository
	dir := t.TempDir()
	if _, err := spec.InitLayout(dir); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "openspec", "changes", "c")
	files := map[string]string{
		"proposal.md": "## Why\nBecause.\n\n## What Changes\n- cap\n",
		"tasks.md":    "## 1. Work\n- [ ] 1.1 Do it\n",
		"specs/cap/spec.md": "## ADDED Requirements\n\n### Requirement: Thing\nThe system SHALL do the thing.\n\n" +
			"#### Scenario: it does\n- **WHEN** asked\n- **THEN** it does\n",
	}
	for name, body := range files {
		p := filepath.Join(cdir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := spec.FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestArchiveAsks: without Yes, archive asks OpenSpec's two questions in
// order; with no way to ask it refuses with OpenSpec's codes (worded for
// --json or not); a "no" cancels. None of these writes anything.
func TestArchiveAsks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        ArchiveOptions
		answers  []bool
		asked    int
		code     string
		fixHas   string
		cancel   bool
		archived bool
	}{
		{name: "no terminal", code: "archive_tasks_incomplete", fixHas: "rerun with openspec archive c --yes"},
		{name: "json", o: ArchiveOptions{JSON: true}, code: "archive_tasks_incomplete", fixHas: "rerun with --yes."},
		{name: "no to tasks", answers: []bool{false}, asked: 1, cancel: true},
		{name: "yes then no", answers: []bool{true, false}, asked: 2, cancel: true},
		{name: "yes yes", answers: []bool{true, true}, asked: 2, archived: true},
		{name: "skip-specs asks once", o: ArchiveOptions{SkipSpecs: true}, answers: []bool{true}, asked: 1, archived: true},
		{name: "--yes asks nothing", o: ArchiveOptions{Yes: true}, archived: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newArchivable(t)
			var asked []string
			o := tc.o
			if tc.answers != nil {
				o.Ask = func(q string) (bool, error) {
					asked = append(asked, q)
					return tc.answers[len(asked)-1], nil
				}
			}
			_, err := Archive(t.Context(), r, "c", o)
			if len(asked) != tc.asked {
				t.Errorf("asked %q, want %d questions", asked, tc.asked)
			}
			var b *Blocked
			switch {
			case tc.code != "":
				if !errors.As(err, &b) || b.Code != tc.code || !strings.Contains(b.Fix, tc.fixHas) {
					t.Fatalf("err %v (%#v), want %s with fix containing %q", err, b, tc.code, tc.fixHas)
				}
			case tc.cancel:
				if !errors.Is(err, ErrCancelled) {
					t.Fatalf("err %v, want ErrCancelled", err)
				}
			case err != nil:
				t.Fatal(err)
			}
			_, statErr := os.Stat(r.ChangeDir("c"))
			if gone := os.IsNotExist(statErr); gone != tc.archived {
				t.Errorf("change moved: %v, want %v", gone, tc.archived)
			}
		})
	}
}
