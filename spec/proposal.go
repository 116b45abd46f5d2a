package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// OpenSpec 1.13.2's validateChange over proposal.md, which its archive
// runs (without --json or --no-validate) for the "Proposal warnings"
// it prints and never blocks on.

// Words of OpenSpec's validation messages (its VALIDATION_MESSAGES).
const (
	msgNoDeltas         = "Change must have at least one delta. No deltas found. Ensure your change has a specs/ directory with capability folders (e.g. specs/http-server/spec.md) containing .md files that use delta headers (## ADDED/MODIFIED/REMOVED/RENAMED Requirements) and that each requirement includes at least one \"#### Scenario:\" block. If this change intentionally modifies no specs (pure refactor, tooling, docs), set \"skip_specs: true\" in the change's .openspec.yaml instead. Tip: run \"openspec change show <change-id> --json --deltas-only\" to inspect parsed deltas."
	guideChangeSections = `Missing required sections. Expected headers: "## Why" and "## What Changes". Ensure deltas are documented in specs/ using delta headers.`

	minWhyLength        = 50
	maxWhyLength        = 1000
	maxDeltasPerChange  = 10
	minDeltaDescription = 10
)

// ProposalWarnings is what OpenSpec 1.13.2's archive prints, in order,
// under "Proposal warnings in proposal.md (non-blocking):": the issues of
// validateChange over the change's proposal and deltas, but for the
// requirement-level ones (a REMOVED delta has no scenario by design),
// when that validation fails; else none. A change without proposal.md
// has none. A proposal jj-openspec does not read as OpenSpec does (a link
// under the change, a specs/ that cannot be walked) is ErrNotRead.
func (r Root) ProposalWarnings(change string) ([]Issue, error) {
	p, err := r.parseChange(change)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	// The parser throws: one issue.
	switch {
	case p.why == "":
		return []Issue{{Level: LevelError, Path: "file", Message: "Change must have a Why section. " + guideChangeSections}}, nil
	case p.what == "":
		return []Issue{{Level: LevelError, Path: "file", Message: "Change must have a What Changes section. " + guideChangeSections}}, nil
	}
	var issues []Issue
	valid := true
	add := func(level, path, msg string) {
		issues = append(issues, Issue{Level: level, Path: path, Message: msg})
		valid = valid && level != LevelError
	}
	marker := r.skipSpecsMarker(change)
	if marker.invalid != "" {
		add(LevelError, ".openspec.yaml", markerInvalidMessage(marker.invalid))
	}
	// ChangeSchema, field by field in its order; zod counts a string's
	// length in code points.
	switch n := utf8.RuneCountInString(jstext.Trim(p.why)); {
	case n < minWhyLength:
		add(LevelError, "why", fmt.Sprintf("Why section must be at least %d characters", minWhyLength))
	case n > maxWhyLength:
		add(LevelError, "why", fmt.Sprintf("Why section should not exceed %d characters", maxWhyLength))
	}
	if jstext.Trim(p.what) == "" {
		add(LevelError, "whatChanges", "What Changes section cannot be empty")
	}
	deltas := p.doc.Deltas
	for _, d := range deltas {
		if d.Spec == "" {
			add(LevelError, "deltas.spec", "Spec name cannot be empty")
		}
		if d.Description == "" {
			add(LevelError, "deltas.description", "Delta description cannot be empty")
		}
		// Requirement-level issues fail the validation but are not
		// printed.
		if q := d.Requirement; q != nil && (q.Text == "" || len(q.Scenarios) == 0) {
			valid = false
		}
	}
	switch {
	case len(deltas) == 0 && !marker.declared:
		add(LevelError, "deltas", msgNoDeltas)
	case len(deltas) > maxDeltasPerChange:
		add(LevelError, "deltas", fmt.Sprintf("Consider splitting changes with more than %d deltas", maxDeltasPerChange))
	}
	// applyChangeRules.
	for _, d := range deltas {
		if jsLen(d.Description) < minDeltaDescription {
			add(LevelWarning, "description", "Delta description is too brief")
		}
		if (d.Operation == "ADDED" || d.Operation == "MODIFIED") && d.Requirement == nil {
			add(LevelWarning, "requirements", d.Operation+" Delta should include requirements")
		}
	}
	if valid {
		return nil, nil
	}
	return issues, nil
}

// markerInvalidMessage is OpenSpec's error for a skip_specs marker it
// cannot honour.
func markerInvalidMessage(reason string) string {
	return "skip_specs is set but .openspec.yaml is not valid change metadata, so the marker is not honored. Fix the metadata (" + reason + ")"
}
