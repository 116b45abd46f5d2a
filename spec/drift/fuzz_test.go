package drift

import (
	"strings"
	"testing"
)

// FuzzMergeRequirement: the merge never panics, a side that changed
// nothing never conflicts, and the conflicts it renders are the hunks
// Render wrote.
func FuzzMergeRequirement(f *testing.F) {
	f.Add(reqBase, reqBase+"\n\n#### Scenario: A\n- a", reqBase+"\n\n#### Scenario: B\n- b")
	f.Add(reqBase, strings.Replace(reqBase, "a session", "a day", 1), strings.Replace(reqBase, "a session", "an hour", 1))
	f.Add("### Requirement: X\n```\n#### Scenario: not one\n```\n", "### Requirement: X\n", "### Requirement: X\n#### Scenario: Y\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		m := MergeRequirement(base, ours, theirs, Labels{Base: "base", Left: "live", Right: "change"})
		_ = m.String()
		if lf(ours) == lf(base) && m.Conflicts() != 0 {
			t.Fatalf("ours unchanged but %d conflicts:\n%s", m.Conflicts(), m)
		}
		if lf(theirs) == lf(base) && m.Conflicts() != 0 {
			t.Fatalf("theirs unchanged but %d conflicts:\n%s", m.Conflicts(), m)
		}
	})
}
