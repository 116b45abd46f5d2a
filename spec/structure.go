package spec

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// Issue levels, as OpenSpec reports them.
const (
	LevelError   = "ERROR"
	LevelWarning = "WARNING"
	LevelInfo    = "INFO"
)

// Issue is one validation finding, shaped like an item of
// `openspec validate --json`'s issues.
type Issue struct {
	Level   string `json:"level"`
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// structureIssue is a main-spec layout problem that stops archive from
// updating the spec (OpenSpec's findMainSpecStructureIssues).
type structureIssue struct {
	Line    int
	Message string
}

// isDeltaHeader matches /^##\s+(ADDED|MODIFIED|REMOVED|RENAMED)\s+Requirements\s*$/i.
func isDeltaHeader(line string) bool {
	if !isH2(line) {
		return false
	}
	i := jstext.SkipSpace(line, 2)
	for _, op := range []string{"added", "modified", "removed", "renamed"} {
		if jstext.HasPrefixFold(line[i:], op) {
			j := i + len(op)
			k := jstext.SkipSpace(line, j)
			if k == j || !jstext.HasPrefixFold(line[k:], "requirements") {
				return false
			}
			return jstext.IsAllSpace(line[k+len("requirements"):])
		}
	}
	return false
}

// strictRequirementHeader matches /^###\s+Requirement:\s*(.+)\s*$/i (one
// or more spaces after ###, unlike the delta reader's \s*).
func strictRequirementHeader(line string) (string, bool) {
	if !strings.HasPrefix(line, "###") || jstext.SkipSpace(line, 3) == 3 {
		return "", false
	}
	return requirementHeader(line)
}

func mainSpecStructureIssues(content string) []structureIssue {
	lines := strings.Split(jstext.NormalizeNewlines(content, false), "\n")
	mask := osFenceMask(lines)
	for i := range lines {
		if mask[i] {
			lines[i] = ""
		}
	}
	reqIdx := -1
	for i, l := range lines {
		if isRequirementsHeader(l) {
			reqIdx = i
			break
		}
	}
	reqEnd := len(lines)
	if reqIdx >= 0 {
		for i := reqIdx + 1; i < len(lines); i++ {
			if isH2(lines[i]) {
				reqEnd = i
				break
			}
		}
	}
	var out []structureIssue
	seen := map[string]int{}
	for i, line := range lines {
		trimmed := jstext.Trim(line)
		if trimmed == "" {
			continue
		}
		if isDeltaHeader(line) {
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Main spec contains delta header \"%s\". Delta headers are only valid inside openspec/changes/<name>/specs/<capability-path>/spec.md and truncate the parsed ## Requirements section.", trimmed)})
			continue
		}
		m, ok := strictRequirementHeader(line)
		if !ok {
			continue
		}
		if reqIdx < 0 || i <= reqIdx || i >= reqEnd {
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Requirement header \"%s\" appears outside the main ## Requirements section. Main specs only parse requirements inside that section, so this requirement is currently invisible to validate, list, and archive.", trimmed)})
			continue
		}
		name := NormalizeRequirementName(m)
		if prev, dup := seen[name]; dup {
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Requirement header \"%s\" duplicates the requirement declared on line %d. Requirement names must be unique so spec updates cannot discard one block while updating another.", trimmed, prev)})
		} else {
			seen[name] = i + 1
		}
	}
	return out
}

// ValidateSpecContent checks a main spec's text as OpenSpec 1.13.2's
// Validator.validateSpec and validateSpecContent do (validate SPEC, and
// the spec archive is about to write): the spec as MarkdownParser reads
// it against its schema, then applySpecRules: layout problems, a Purpose
// that is a placeholder or too brief, requirements too long or without
// scenarios, and SHALL/MUST in each requirement's body. The spec is
// valid when no issue is an ERROR (or, strict, a WARNING).
func ValidateSpecContent(name, content string) []Issue {
	sp, err := ParseSpec(name, content)
	if err != nil {
		return []Issue{{Level: LevelError, Path: "file", Message: err.Error() + ". " + guideMissingSpecSections}}
	}
	var out []Issue
	// The schema's checks (zod's), in its order.
	if sp.Overview == "" {
		out = append(out, Issue{Level: LevelError, Path: "overview", Message: "Purpose section cannot be empty"})
	}
	if len(sp.Requirements) == 0 {
		out = append(out, Issue{Level: LevelError, Path: "requirements", Message: "Spec must have at least one requirement"})
	}
	for i, r := range sp.Requirements {
		if r.Text == "" {
			out = append(out, Issue{Level: LevelError, Path: fmt.Sprintf("requirements.%d.text", i), Message: "Requirement text cannot be empty"})
		}
		if len(r.Scenarios) == 0 {
			out = append(out, Issue{Level: LevelError, Path: fmt.Sprintf("requirements.%d.scenarios", i), Message: "Requirement must have at least one scenario"})
		}
	}
	// applySpecRules
	for _, si := range mainSpecStructureIssues(content) {
		out = append(out, Issue{Level: LevelError, Path: "file", Line: si.Line, Message: si.Message})
	}
	if found, line := purposePlaceholder(sp.Overview, content); found {
		out = append(out, Issue{Level: LevelWarning, Path: "overview", Line: line, Message: purposeIsPlaceholder})
	} else if jsLen(sp.Overview) < minPurposeLength {
		out = append(out, Issue{Level: LevelWarning, Path: "overview", Message: "Purpose section is too brief (less than 50 characters)"})
	}
	for i, r := range sp.Requirements {
		if jsLen(r.Text) > maxRequirementText {
			out = append(out, Issue{Level: LevelInfo, Path: fmt.Sprintf("requirements[%d]", i), Message: "Requirement text is very long (>500 characters). Consider breaking it down."})
		}
		if len(r.Scenarios) == 0 {
			out = append(out, Issue{Level: LevelWarning, Path: fmt.Sprintf("requirements[%d].scenarios", i), Message: "Requirement must have at least one scenario. " + guideScenarioFormat})
		}
	}
	for i, b := range ExtractRequirementsSection(content).Blocks {
		body := requirementBody(strings.Split(b.Raw, "\n")[1:])
		prefix := fmt.Sprintf("Requirement \"%s\"", b.Name)
		switch {
		case body == "":
			out = append(out, Issue{Level: LevelError, Path: fmt.Sprintf("requirements[%d]", i), Message: shallMessage(prefix, b.Name, false)})
		case !containsShallOrMust(body):
			out = append(out, Issue{Level: LevelWarning, Path: fmt.Sprintf("requirements[%d]", i), Message: shallMessage(prefix, b.Name, true)})
		}
	}
	return out
}

// OpenSpec 1.13.2's words (validation/constants.js).
const (
	guideMissingSpecSections = "Missing required sections. Expected headers: \"## Purpose\" and \"## Requirements\". Example:\n## Purpose\n[brief purpose]\n\n## Requirements\n### Requirement: Clear requirement statement\nUsers SHALL ...\n\n#### Scenario: Descriptive name\n- **WHEN** ...\n- **THEN** ..."
	guideScenarioFormat      = "Scenarios must use level-4 headers. Convert bullet lists into:\n#### Scenario: Short name\n- **WHEN** ...\n- **THEN** ...\n- **AND** ..."
	purposeIsPlaceholder     = "Purpose section is still a placeholder rather than a Purpose anyone wrote (the sentence `openspec archive` " +
		"writes for a new capability, or a `TBD`/`TODO` marker left in its place). Replace it with what this " +
		"capability is for, editing the main spec directly: a `## Purpose` in a delta is read only when the " +
		"capability is created, so it cannot replace this one."
	maxRequirementText = 500 // MAX_REQUIREMENT_TEXT_LENGTH
)

// ValidateSpec validates spec id (openspec/specs/ID/spec.md) as OpenSpec
// 1.13.2's validateSpec does (ValidateSpecContent); with strict a WARNING
// fails it too. The file is read through ReadFile: a link out of the
// repository is ErrOutside, a spec.md that is not a regular file an error.
func (r Root) ValidateSpec(id string, strict bool) (Report, error) {
	raw, err := r.ReadText(filepath.Join(r.SpecsDir(), filepath.FromSlash(id), "spec.md"))
	if err != nil {
		return Report{}, err
	}
	rep := Report{Change: id, Issues: ValidateSpecContent(id, string(raw))}
	rep.Valid = !HasErrors(rep.Issues, strict)
	if rep.Issues == nil {
		rep.Issues = []Issue{}
	}
	return rep, nil
}

// minPurposeLength is OpenSpec's MIN_PURPOSE_LENGTH.
const minPurposeLength = 50

// HasErrors reports whether any issue is an ERROR, or a WARNING when strict.
func HasErrors(issues []Issue, strict bool) bool {
	for _, i := range issues {
		if i.Level == LevelError || (strict && i.Level == LevelWarning) {
			return true
		}
	}
	return false
}
