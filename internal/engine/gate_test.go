package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRejectedFindingRaisedAgain(t *testing.T) {
	rejected := []Rejection{{Finding: Finding{ID: "r1-1", Kind: KindCorrectness, File: "a.go", Message: "may  panic on nil"}, Reason: "checked above"}}
	tests := []struct {
		name string
		f    Finding
		want bool
	}{
		{"same file and message, spacing and case aside", Finding{File: "A.go", Message: "May panic on nil"}, true},
		{"names the rejected id", Finding{File: "b.go", Message: "other words", Reraises: "r1-1"}, true},
		{"another file", Finding{File: "b.go", Message: "may panic on nil"}, false},
		{"another message", Finding{File: "a.go", Message: "leaks a file"}, false},
	}
	for _, tc := range tests {
		if _, got := Rerejected(tc.f, rejected); got != tc.want {
			t.Errorf("%s: Rerejected = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOneSeverityScale: a kind places a finding on the one scale, and a
// severity, when given, is what counts.
func TestOneSeverityScale(t *testing.T) {
	for kind, blocks := range map[string]bool{KindUnmetCriterion: true, KindRedValidation: true, KindCorrectness: true, "minor": false, "": false, "style": false} {
		if got := (Finding{Kind: kind}).Blocking(); got != blocks {
			t.Errorf("kind %q blocks = %v, want %v", kind, got, blocks)
		}
	}
	if (Finding{Kind: KindCorrectness, Severity: SeveritySuggestion}).Blocking() {
		t.Error("a suggestion blocks because of its kind")
	}
	if !(Finding{Severity: SeverityCritical}).Blocking() {
		t.Error("a critical finding without a kind does not block")
	}
}

// gateScript is a gate whose reviewer answers from a script of rounds and
// whose fixer answers verdicts from another, recording every step.
type gateScript struct {
	reviews  [][]Finding
	verdicts []map[string]FixVerdict
	steps    []string
	refresh  int
	seen     [][]Rejection
}

func (s *gateScript) gate(max int, fixLast bool) Gate {
	return Gate{MaxRounds: max, FixLast: fixLast,
		Review: func(_ context.Context, round int, rejected []Rejection, _ []Finding) ([]Finding, error) {
			s.seen = append(s.seen, rejected)
			return s.reviews[round-1], nil
		},
		Fix: func(_ context.Context, round int, _ []Finding) (map[string]FixVerdict, error) {
			return s.verdicts[round-1], nil
		},
		Refresh: func(context.Context, int) error { s.refresh++; return nil },
		Record: func(g GateStep) error {
			s.steps = append(s.steps, fmt.Sprintf("%d %s %s %s %d", g.Round, g.Kind, g.Status, g.Finding.ID, g.Count))
			return nil
		},
	}
}

func TestGateLoop(t *testing.T) {
	bug := Finding{ID: "r1-1", Kind: KindCorrectness, File: "a.go", Message: "nil deref"}
	again := Finding{ID: "r2-1", Kind: KindCorrectness, File: "a.go", Message: "Nil  deref"}
	falsified := again
	falsified.Falsifies = "the check above is gone"
	t.Run("rejected then raised again without a falsification is dropped", func(t *testing.T) {
		s := &gateScript{
			reviews:  [][]Finding{{bug, {ID: "m", Kind: "minor", Message: "style"}}, {again}},
			verdicts: []map[string]FixVerdict{{"r1-1": {ID: "r1-1", Verdict: "rejected", Reason: "checked above"}}},
		}
		res, err := s.gate(3, false).Run(context.Background())
		if err != nil || !res.Passed || res.Rounds != 2 || s.refresh != 1 {
			t.Fatalf("res %+v err %v refresh %d", res, err, s.refresh)
		}
		want := []string{"1 reviewed blocked  1", "1 verdict rejected r1-1 0", "2 dropped  r2-1 0", "2 reviewed passed  0"}
		if !reflect.DeepEqual(s.steps, want) {
			t.Errorf("steps %q, want %q", s.steps, want)
		}
		if len(s.seen[1]) != 1 || s.seen[1][0].Reason != "checked above" {
			t.Errorf("round 2's reviewer saw rejections %+v", s.seen[1])
		}
	})
	t.Run("a falsified re-raise blocks; the last round leaves it unresolved", func(t *testing.T) {
		s := &gateScript{
			reviews:  [][]Finding{{bug}, {falsified}},
			verdicts: []map[string]FixVerdict{{"r1-1": {ID: "r1-1", Verdict: "rejected", Reason: "checked above"}}},
		}
		res, err := s.gate(2, false).Run(context.Background())
		if err != nil || res.Passed || len(res.Blocking) != 1 {
			t.Fatalf("res %+v err %v", res, err)
		}
		want := []string{"1 reviewed blocked  1", "1 verdict rejected r1-1 0", "2 reviewed blocked  1", "2 unresolved  r2-1 0"}
		if !reflect.DeepEqual(s.steps, want) {
			t.Errorf("steps %q, want %q", s.steps, want)
		}
	})
	t.Run("no verdict, a rejection without a reason, red checks", func(t *testing.T) {
		s := &gateScript{
			reviews:  [][]Finding{{bug, {ID: "r1-2", Kind: KindUnmetCriterion, Message: "no docs"}}},
			verdicts: []map[string]FixVerdict{{"r1-2": {ID: "r1-2", Verdict: "rejected"}}},
		}
		g := s.gate(1, true)
		g.Red = func(int) []Finding { return []Finding{{ID: "v1", Kind: KindRedValidation, Message: "go test"}} }
		res, err := g.Run(context.Background())
		if err != nil || res.Passed || len(res.Blocking) != 3 || s.refresh != 0 {
			t.Fatalf("res %+v err %v refresh %d", res, err, s.refresh)
		}
		want := []string{"1 reviewed blocked  3", "1 verdict none r1-1 0", "1 verdict none r1-2 0", "1 verdict none v1 0"}
		if !reflect.DeepEqual(s.steps, want) {
			t.Errorf("steps %q, want %q", s.steps, want)
		}
	})
}

func TestReadGateAnswers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeTestFile(t, dir, name, text) }
	fs, err := ReadGateFindings(write("f.json", `[{"kind":"correctness","message":"a"},{"id":"x","kind":"minor","message":"b"}]`), "r1-")
	if err != nil || len(fs) != 2 || fs[0].ID != "r1-1" || fs[1].ID != "x" || !fs[0].Blocking() || fs[1].Blocking() {
		t.Errorf("findings %+v err %v", fs, err)
	}
	if fs, err := ReadGateFindings(filepath.Join(dir, "missing"), "r"); err != nil || fs != nil {
		t.Errorf("missing: %+v %v", fs, err)
	}
	var nj *NotJSONError
	if _, err := ReadGateFindings(write("bad.json", `{"kind":`), "r"); !errors.As(err, &nj) {
		t.Errorf("not JSON: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "f.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGateFindings(filepath.Join(dir, "link.json"), "r"); err == nil || errors.As(err, &nj) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symbolic link: %v", err)
	}
	vs, err := ReadFixVerdicts(write("v.json", "not json"))
	if !errors.As(err, &nj) || vs == nil || len(vs) != 0 {
		t.Errorf("verdicts not JSON: %+v %v", vs, err)
	}
	vs, err = ReadFixVerdicts(write("v2.json", `[{"id":"a","verdict":"fixed"}]`))
	if err != nil || vs["a"].Verdict != "fixed" {
		t.Errorf("verdicts: %+v %v", vs, err)
	}
}

// writeTestFile writes text to dir/name and returns its path.
func writeTestFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
