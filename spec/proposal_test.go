package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProposalWarnings: the issues OpenSpec 1.13.2's archive prints
// under "Proposal warnings", each case's wants as the real CLI printed
// them (archive CHANGE --yes), in its order; none when its check passes
// or fails only on requirement-level issues.
func TestProposalWarnings(t *testing.T) {
	const why = "This change exists because we need a long enough reason for the validator to accept it."
	const (
		short     = "Why section must be at least 50 characters"
		brief     = "Delta description is too brief"
		noDeltas  = msgNoDeltas
		noWhatSec = `Change must have a What Changes section. Missing required sections. Expected headers: "## Why" and "## What Changes". Ensure deltas are documented in specs/ using delta headers.`
	)
	removed := "## REMOVED Requirements\n### Requirement: Password login\n**Reason**: gone\n**Migration**: none\n"
	var many strings.Builder
	many.WriteString("## ADDED Requirements\n")
	for i := range 11 {
		many.WriteString("### Requirement: R" + string(rune('a'+i)) + "\nThe system SHALL do it.\n\n#### Scenario: s\n- **WHEN** x\n- **THEN** y\n\n")
	}
	proposal := func(why, what string) string { return "## Why\n" + why + "\n\n## What Changes\n" + what + "\n" }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"short why, no deltas", map[string]string{"proposal.md": proposal("short", "- things")}, []string{short, noDeltas}},
		{"only a removal", map[string]string{"proposal.md": proposal(why, "- remove"), "specs/auth/spec.md": removed}, nil},
		{"short why and a removal", map[string]string{"proposal.md": proposal("short", "- remove"), "specs/auth/spec.md": removed}, []string{short}},
		{"prose deltas", map[string]string{"proposal.md": proposal("short", "- **auth:** Add x\n- **billing:** Modify the billing thing a lot\n- **auth:** Remove y")},
			[]string{short, brief, "ADDED Delta should include requirements", "MODIFIED Delta should include requirements", brief}},
		{"prose deltas, no error", map[string]string{"proposal.md": proposal(why, "- **auth:** Add x")}, nil},
		{"eleven deltas", map[string]string{"proposal.md": proposal(why, "- many"), "specs/auth/spec.md": many.String()}, []string{"Consider splitting changes with more than 10 deltas"}},
		{"no Why", map[string]string{"proposal.md": "## What Changes\n- x\n"},
			[]string{`Change must have a Why section. Missing required sections. Expected headers: "## Why" and "## What Changes". Ensure deltas are documented in specs/ using delta headers.`}},
		{"blank What Changes", map[string]string{"proposal.md": proposal(why, "   ")}, []string{noWhatSec}},
		{"no What Changes", map[string]string{"proposal.md": "## Why\n" + why + "\n"}, []string{noWhatSec}},
		{"skip_specs", map[string]string{"proposal.md": proposal("short", "- none"), ".openspec.yaml": "schema: spec-driven\ncreated: 2026-01-01\nskip_specs: true\n"}, []string{short}},
		{"skip_specs, unknown schema", map[string]string{"proposal.md": proposal("short", "- none"), ".openspec.yaml": "schema: nope\nskip_specs: true\n"},
			[]string{"skip_specs is set but .openspec.yaml is not valid change metadata, so the marker is not honored. Fix the metadata (schema: unknown schema 'nope')", short, noDeltas}},
		{"short why in code points", map[string]string{"proposal.md": proposal(strings.Repeat("🎉", 30), "- x"), "specs/auth/spec.md": removed}, []string{short}},
		{"long why in UTF-16 only", map[string]string{"proposal.md": proposal(strings.Repeat("🎉", 600), "- x"), "specs/auth/spec.md": removed}, nil},
		{"long why", map[string]string{"proposal.md": proposal(strings.Repeat("x", 1001), "- x")}, []string{"Why section should not exceed 1000 characters", noDeltas}},
		{"blank spec name", map[string]string{"proposal.md": proposal("short", "- ** :** something here")}, []string{short, "Spec name cannot be empty", "MODIFIED Delta should include requirements"}},
		{"no deltas", map[string]string{"proposal.md": proposal(why, "- nothing")}, []string{noDeltas}},
		{"no scenario", map[string]string{"proposal.md": proposal("short", "- add"), "specs/auth/spec.md": "## ADDED Requirements\n### Requirement: New\nThe system SHALL x.\n"}, []string{short}},
		{"no proposal", map[string]string{"tasks.md": "- [ ] 1.1 x\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := archiveFixture(t)
			dir := r.ChangeDir("c")
			for p, s := range tc.files {
				p = filepath.Join(dir, p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			issues, err := r.ProposalWarnings("c")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, i := range issues {
				got = append(got, i.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}
