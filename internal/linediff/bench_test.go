package linediff

import (
	"fmt"
	"strings"
	"testing"
)

// benchSpec returns an OpenSpec spec of n requirements (about 11 lines
// each: a header, a sentence, two scenarios of three lines, blank lines).
func benchSpec(n int) string {
	var b strings.Builder
	b.WriteString("# cap Specification\n\n## Purpose\nWhat the capability does, in one sentence.\n\n## Requirements\n")
	for i := range n {
		fmt.Fprintf(&b, "\n### Requirement: Behaviour %d\nThe system SHALL keep behaviour %d.\n\n#### Scenario: Works %d\n- **WHEN** it runs\n- **THEN** it works\n\n#### Scenario: Refused\n- **WHEN** asked wrongly\n- **THEN** it refuses\n", i, i, i)
	}
	return b.String()
}

// benchEdit edits a spec as an archive does: one requirement's sentence
// reworded, one scenario removed, one requirement added in the middle
// and one at the end; shift moves the edits so two edits of one spec
// touch different requirements.
func benchEdit(spec string, n, shift int) string {
	r := func(k int) int { return (k + shift) % n }
	s := strings.Replace(spec, fmt.Sprintf("SHALL keep behaviour %d.", r(n/3)), fmt.Sprintf("SHALL keep behaviour %d, and log it.", r(n/3)), 1)
	s = strings.Replace(s, fmt.Sprintf("#### Scenario: Works %d\n- **WHEN** it runs\n- **THEN** it works\n\n", r(n/2)), "", 1)
	add := func(name string) string {
		return fmt.Sprintf("\n### Requirement: %s\nThe system SHALL do %s.\n\n#### Scenario: Done\n- **WHEN** asked\n- **THEN** it refuses\n", name, name)
	}
	at := fmt.Sprintf("\n### Requirement: Behaviour %d\n", r(2*n/3))
	s = strings.Replace(s, at, add(fmt.Sprintf("Added %d", shift))+at, 1)
	return s + add(fmt.Sprintf("Last %d", shift))
}

func BenchmarkUnified(b *testing.B) {
	for _, n := range []int{2, 30, 300} {
		old := benchSpec(n)
		new := benchEdit(old, n, 0)
		b.Run(fmt.Sprintf("%d-lines", len(Lines(old))), func(b *testing.B) {
			for b.Loop() {
				if Unified("a/x", "b/x", old, new) == "" {
					b.Fatal("no diff")
				}
			}
		})
	}
}

func BenchmarkMatch(b *testing.B) {
	for _, n := range []int{2, 30, 300} {
		base := Lines(benchSpec(n))
		left := Lines(benchEdit(benchSpec(n), n, 1))
		b.Run(fmt.Sprintf("%d-lines", len(base)), func(b *testing.B) {
			for b.Loop() {
				if len(Match(base, left)) == 0 {
					b.Fatal("nothing matched")
				}
			}
		})
	}
}
