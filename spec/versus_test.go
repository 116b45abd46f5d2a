package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/linediff"
)

// BenchmarkVersusLinediff times UnifiedDiff (go-internal/diff read back,
// refined with an LCS) against internal/linediff's (go-diff) on an
// archive's diff of a spec, and prints new/old. Run with
//
//	go test ./spec -run '^$' -bench VersusLinediff -benchmem
func BenchmarkVersusLinediff(b *testing.B) {
	for _, n := range []int{2, 30, 300} {
		old := vsSpec(n)
		new := vsEdit(old, n, 0)
		ratio(b, fmt.Sprintf("unified-%d-lines", len(linediff.Lines(old))), func() {
			UnifiedDiff("x", old, new, true)
		}, func() {
			linediff.Unified("a/x", "b/x", old, new)
		})
	}
}

// vsSpec returns an OpenSpec spec of n requirements (about 11 lines
// each: a header, a sentence, two scenarios of three lines, blank lines).
func vsSpec(n int) string {
	var b strings.Builder
	b.WriteString("# cap Specification\n\n## Purpose\nWhat the capability does, in one sentence.\n\n## Requirements\n")
	for i := range n {
		fmt.Fprintf(&b, "\n### Requirement: Behaviour %d\nThe system SHALL keep behaviour %d.\n\n#### Scenario: Works %d\n- **WHEN** it runs\n- **THEN** it works\n\n#### Scenario: Refused\n- **WHEN** asked wrongly\n- **THEN** it refuses\n", i, i, i)
	}
	return b.String()
}

// vsEdit edits a spec as an archive does: one requirement's sentence
// reworded, one scenario removed, one requirement added in the middle
// and one at the end; shift moves the edits so two edits of one spec
// touch different requirements.
func vsEdit(spec string, n, shift int) string {
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

// ratio benchmarks old and new as sub-benchmarks and prints new's time
// per operation over old's.
func ratio(b *testing.B, name string, old, new func()) {
	var ns [2]float64
	for k, f := range []func(){old, new} {
		b.Run(name+"/"+[]string{"old", "new"}[k], func(b *testing.B) {
			for b.Loop() {
				f()
			}
			ns[k] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	}
	fmt.Printf("%-28s old %10.0f ns/op   new %10.0f ns/op   new/old %.2f\n", name, ns[0], ns[1], ns[1]/ns[0])
}
