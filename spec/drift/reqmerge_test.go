package drift

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/conflict"
)

const reqBase = `### Requirement: Login
The system SHALL log users in.

#### Scenario: Valid
- **WHEN** valid credentials
- **THEN** a session`

func TestMergeRequirementKeepsScenariosOfBothSides(t *testing.T) {
	ours := reqBase + "\n\n#### Scenario: Windsurf\n- **WHEN** windsurf\n- **THEN** ok"
	theirs := reqBase + "\n\n#### Scenario: Kilo\n- **WHEN** kilo\n- **THEN** ok"
	m := MergeRequirement(reqBase, ours, theirs, Labels{Base: "base", Left: "live", Right: "change"})
	if m.Conflicts() != 0 {
		t.Fatalf("conflicts: %d\n%s", m.Conflicts(), m)
	}
	want := reqBase + "\n\n#### Scenario: Windsurf\n- **WHEN** windsurf\n- **THEN** ok\n\n#### Scenario: Kilo\n- **WHEN** kilo\n- **THEN** ok"
	if got := m.String(); got != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
}

func TestMergeRequirementLineLevelWithinScenario(t *testing.T) {
	ours := strings.Replace(reqBase, "The system SHALL log users in.", "The system SHALL log users in quickly.", 1)
	theirs := strings.Replace(reqBase, "- **THEN** a session", "- **THEN** a session is created", 1)
	m := MergeRequirement(reqBase, ours, theirs, Labels{})
	if m.Conflicts() != 0 {
		t.Fatalf("conflicts: %d\n%s", m.Conflicts(), m)
	}
	got := m.String()
	if !strings.Contains(got, "log users in quickly.") || !strings.Contains(got, "a session is created") {
		t.Fatalf("an edit was lost:\n%s", got)
	}
}

func TestMergeRequirementConflictWritesMarkersResolveReads(t *testing.T) {
	ours := strings.Replace(reqBase, "- **THEN** a session", "- **THEN** a session for a day", 1)
	theirs := strings.Replace(reqBase, "- **THEN** a session", "- **THEN** a session for an hour", 1)
	m := MergeRequirement(reqBase, ours, theirs, Labels{Base: "base abc", Left: "live openspec/specs/auth/spec.md", Right: "change b"})
	if m.Conflicts() != 1 {
		t.Fatalf("conflicts: %d\n%s", m.Conflicts(), m)
	}
	text := m.String() + "\n"
	f := conflict.ParseString(text)
	if len(f.Hunks) != 1 || len(f.Problems) > 0 {
		t.Fatalf("parse: %d hunks, problems %v\n%s", len(f.Hunks), f.Problems, text)
	}
	res := conflict.ResolveFile(f, conflict.Strategy{Kind: conflict.Theirs})
	if got := strings.TrimRight(string(res.Content), "\n"); got != theirs {
		t.Fatalf("theirs:\n%s\nwant:\n%s", got, theirs)
	}
}

func TestMergeRequirementEditedAndDeletedConflicts(t *testing.T) {
	two := reqBase + "\n\n#### Scenario: Old\n- **WHEN** old\n- **THEN** old"
	ours := reqBase + "\n\n#### Scenario: Old\n- **WHEN** old\n- **THEN** changed"
	m := MergeRequirement(two, ours, reqBase, Labels{})
	if m.Conflicts() != 1 {
		t.Fatalf("conflicts: %d\n%s", m.Conflicts(), m)
	}
	// Deleted on one side, untouched on the other: gone, no conflict.
	m = MergeRequirement(two, two, reqBase, Labels{})
	if m.Conflicts() != 0 || strings.Contains(m.String(), "Old") {
		t.Fatalf("want the scenario dropped:\n%s", m)
	}
}
