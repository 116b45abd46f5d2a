package conflict_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current code")

// TestGolden parses every conflict that jj and git produced (see
// TestGenerateInputs), checks that rendering gives the input back byte for
// byte, and compares what was read and every strategy's result with the
// golden file.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.conflict"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata/*.conflict inputs (run TestGenerateInputs -regenerate): %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".conflict")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			f := conflict.Parse(data)
			if got := f.Render(); string(got) != string(data) {
				t.Fatalf("Render(Parse(x)) != x:\n got %q\nwant %q", got, data)
			}
			if len(f.Hunks) == 0 {
				t.Fatalf("no hunk found in a file jj or git wrote with conflicts; problems: %v", f.Problems)
			}
			checkGolden(t, filepath.Join("testdata", name+".golden"), describe(f))
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// describe writes what Parse read and what each strategy makes of it.
func describe(f *conflict.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hunks: %d\n", len(f.Hunks))
	for _, p := range f.Problems {
		fmt.Fprintf(&b, "problem: %s: %s\n", p.Kind, p)
	}
	for _, h := range f.Hunks {
		fmt.Fprintf(&b, "hunk %d: style=%s marker_len=%d lines %d-%d info=%q\n", h.Index, h.Style, h.MarkerLen, h.StartLine, h.EndLine, h.Info)
		for i, s := range h.Sides {
			writeTerm(&b, fmt.Sprintf("side %d", i+1), s)
		}
		for i, s := range h.Bases {
			writeTerm(&b, fmt.Sprintf("base %d", i+1), s)
		}
	}
	for _, s := range []string{"ours", "theirs", "side=1", "side=3", "base", "union", "tasks"} {
		st, err := conflict.ParseStrategy(s)
		if err != nil {
			panic(err)
		}
		r := conflict.ResolveFile(f, st)
		fmt.Fprintf(&b, "== %s: resolved %d, left %d, changed %v\n", s, len(r.Resolved), len(r.Left), r.Changed)
		for _, l := range r.Left {
			fmt.Fprintf(&b, "left hunk %d (lines %d-%d): %s\n", l.Index, l.StartLine, l.EndLine, l.Reason)
		}
		if len(r.Ticks) > 0 {
			fmt.Fprintf(&b, "ticks: %s\n", strings.Join(r.Ticks, " "))
		}
		for _, l := range conflict.SplitLines(string(r.Content)) {
			fmt.Fprintf(&b, "  %q\n", l)
		}
	}
	return b.String()
}

func writeTerm(b *strings.Builder, what string, t conflict.Term) {
	l := t.Label
	fmt.Fprintf(b, "  %s: label=%q", what, l.Text)
	if l.ChangeID != "" {
		fmt.Fprintf(b, " change=%s commit=%s description=%q note=%q", l.ChangeID, l.CommitID, l.Description, l.Note)
	}
	if l.NoFinalNewline {
		b.WriteString(" no-final-newline")
	}
	b.WriteString("\n")
	for _, line := range conflict.SplitLines(t.Text) {
		fmt.Fprintf(b, "    %q\n", line)
	}
}
