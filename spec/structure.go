package spec

import (
	"fmt"
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
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Main spec contains delta header %q. Delta headers are only valid inside openspec/changes/<name>/specs/<capability-path>/spec.md and truncate the parsed ## Requirements section.", trimmed)})
			continue
		}
		m, ok := strictRequirementHeader(line)
		if !ok {
			continue
		}
		if reqIdx < 0 || i <= reqIdx || i >= reqEnd {
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Requirement header %q appears outside the main ## Requirements section. Main specs only parse requirements inside that section, so this requirement is currently invisible to validate, list, and archive.", trimmed)})
			continue
		}
		name := NormalizeRequirementName(m)
		if prev, dup := seen[name]; dup {
			out = append(out, structureIssue{i + 1, fmt.Sprintf("Requirement header %q duplicates the requirement declared on line %d. Requirement names must be unique so spec updates cannot discard one block while updating another.", trimmed, prev)})
		} else {
			seen[name] = i + 1
		}
	}
	return out
}

// ValidateSpecContent checks a main spec's text the way OpenSpec checks
// the spec archive is about to write (Validator.validateSpecContent). The
// spec is valid when no issue is an ERROR (or, strict, a WARNING).
func ValidateSpecContent(name, content string) []Issue {
	sp, err := ParseSpec(name, content)
	if err != nil {
		guide := ` Missing required sections. Expected headers: "## Purpose" and "## Requirements".`
		return []Issue{{Level: LevelError, Path: "file", Message: err.Error() + "." + guide}}
	}
	var out []Issue
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
	for _, si := range mainSpecStructureIssues(content) {
		out = append(out, Issue{Level: LevelError, Path: "file", Line: si.Line, Message: si.Message})
	}
	if len(sp.Overview) < minPurposeLength {
		out = append(out, Issue{Level: LevelWarning, Path: "overview", Message: "Purpose section is too brief (less than 50 characters)"})
	}
	for i, r := range sp.Requirements {
		if len(r.Scenarios) == 0 {
			out = append(out, Issue{Level: LevelWarning, Path: fmt.Sprintf("requirements[%d].scenarios", i), Message: "Requirement must have at least one scenario"})
		}
	}
	for i, b := range ExtractRequirementsSection(content).Blocks {
		body := requirementBody(strings.Split(b.Raw, "\n")[1:])
		switch {
		case body == "":
			out = append(out, Issue{Level: LevelError, Path: fmt.Sprintf("requirements[%d]", i), Message: fmt.Sprintf("Requirement %q must contain SHALL or MUST", b.Name)})
		case !containsShallOrMust(body):
			out = append(out, Issue{Level: LevelWarning, Path: fmt.Sprintf("requirements[%d]", i), Message: fmt.Sprintf("Requirement %q should contain SHALL or MUST (RFC 2119 best practice for English specs)", b.Name)})
		}
	}
	return out
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
