package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/spec"
)

// expectation is an "expect CHANGE: valid|invalid archive|refuse" line of
// a corpus file (testdata/openspec): the decisions of the real OpenSpec
// CLI, which the parity test keeps true.
type expectation struct {
	change  string
	valid   bool
	archive bool
}

func loadCorpus(t *testing.T) map[string][]expectation {
	t.Helper()
	files, err := filepath.Glob("../testdata/openspec/*.txtar")
	if err != nil || len(files) < 25 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	out := map[string][]expectation{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			rest, ok := strings.CutPrefix(line, "expect ")
			if !ok {
				continue
			}
			name, verdicts, _ := strings.Cut(rest, ": ")
			fields := strings.Fields(verdicts)
			if len(fields) != 2 {
				t.Fatalf("%s: bad expect line %q", f, line)
			}
			out[f] = append(out[f], expectation{name, fields[0] == "valid", fields[1] == "archive"})
		}
		if len(out[f]) == 0 {
			t.Fatalf("%s has no expect lines", f)
		}
	}
	return out
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// TestCorpusDecisions validates and archives every corpus change and
// requires OpenSpec's recorded decisions; a refused archive must leave
// every file as it was.
func TestCorpusDecisions(t *testing.T) {
	for file, exps := range loadCorpus(t) {
		for _, e := range exps {
			t.Run(filepath.Base(file)+"/"+e.change, func(t *testing.T) {
				dir := t.TempDir()
				testenv.ExtractCorpus(t, file, dir)
				root := spec.Root{Dir: dir}
				rep, err := root.ValidateChange(e.change, spec.ValidateOptions{MainSpecs: true, Tasks: true}, false)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Valid != e.valid {
					t.Errorf("valid = %v, want %v; issues %+v", rep.Valid, e.valid, rep.Issues)
				}
				before := snapshot(t, dir)
				plan, err := root.PlanArchive(e.change, spec.ArchiveOptions{Yes: true, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.Local)})
				if err == nil {
					err = plan.Apply(t.TempDir())
				}
				if (err == nil) != e.archive {
					t.Fatalf("archive err = %v, want accepted=%v", err, e.archive)
				}
				if err != nil {
					var me *spec.MergeError
					if !errors.Is(err, spec.ErrInvalid) && !errors.As(err, &me) {
						t.Errorf("refusal %v is neither ErrInvalid nor a MergeError", err)
					}
					after := snapshot(t, dir)
					if len(after) != len(before) {
						t.Errorf("refused archive changed the file set: %d → %d files", len(before), len(after))
					}
					for p, c := range before {
						if after[p] != c {
							t.Errorf("refused archive changed %s", p)
						}
					}
					return
				}
				if _, err := os.Stat(root.ChangeDir(e.change)); !os.IsNotExist(err) {
					t.Errorf("change directory still there after archive: %v", err)
				}
				if _, err := os.Stat(plan.ArchivePath); err != nil {
					t.Errorf("archive folder: %v", err)
				}
			})
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	root := spec.Root{Dir: dir}
	os.MkdirAll(root.ChangeDir("real"), 0o755)
	for _, name := range []string{"nope", "../real", ""} {
		if _, err := root.ValidateChange(name, spec.ValidateOptions{}, false); !errors.Is(err, spec.ErrChangeNotFound) {
			t.Errorf("ValidateChange(%q) = %v, want ErrChangeNotFound", name, err)
		}
		if _, err := root.PlanArchive(name, spec.ArchiveOptions{}); !errors.Is(err, spec.ErrChangeNotFound) {
			t.Errorf("PlanArchive(%q) = %v, want ErrChangeNotFound", name, err)
		}
	}
	_, err := root.ValidateChange("nope", spec.ValidateOptions{}, false)
	if !strings.Contains(err.Error(), "available changes: real") {
		t.Errorf("error %q does not name the changes there are", err)
	}
	if _, _, err := root.Tasks("real"); !errors.Is(err, spec.ErrNoTasks) {
		t.Errorf("Tasks without tasks.md = %v, want ErrNoTasks", err)
	}
	if _, err := spec.FindRoot(t.TempDir()); !errors.Is(err, spec.ErrNoRoot) {
		t.Errorf("FindRoot outside a project = %v, want ErrNoRoot", err)
	}
}
