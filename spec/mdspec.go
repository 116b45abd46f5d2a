package spec

import (
	"errors"
	"strings"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// The main-spec reader, following OpenSpec 1.13's MarkdownParser and the
// shared requirement-text helpers. Validation of a spec (and of the spec
// archive is about to write) goes through it.

// Requirement is one requirement of a parsed main spec.
type Requirement struct {
	Text      string
	Scenarios []string // raw scenario bodies (each non-empty)
}

// Spec is a parsed main spec.
type Spec struct {
	Name         string
	Overview     string
	Requirements []Requirement
}

type mdSection struct {
	level    int
	title    string
	content  string
	children []*mdSection
}

// atxHeading matches /^(#{1,6})\s+(.+)$/ and returns the level and title.
func atxHeading(line string) (int, string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, "", false
	}
	rest, ok := jstext.SpaceThenRest(line[n:], 1)
	if !ok {
		return 0, "", false
	}
	return n, jstext.Trim(rest), true
}

// headingLevel matches /^(#{1,6})\s+/ and returns the level, or 0.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || jstext.SkipSpace(line, n) == n {
		return 0
	}
	return n
}

func parseMDSections(lines []string, mask []bool) []*mdSection {
	var top, stack []*mdSection
	for i, line := range lines {
		if mask[i] {
			continue
		}
		level, title, ok := atxHeading(line)
		if !ok {
			continue
		}
		var content []string
		for j := i + 1; j < len(lines); j++ {
			if !mask[j] {
				if l := headingLevel(lines[j]); l > 0 && l <= level {
					break
				}
			}
			content = append(content, lines[j])
		}
		s := &mdSection{level: level, title: title, content: jstext.Trim(strings.Join(content, "\n"))}
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			top = append(top, s)
		} else {
			p := stack[len(stack)-1]
			p.children = append(p.children, s)
		}
		stack = append(stack, s)
	}
	return top
}

func findMDSection(secs []*mdSection, title string) *mdSection {
	for _, s := range secs {
		if strings.ToLower(s.title) == strings.ToLower(title) {
			return s
		}
		if c := findMDSection(s.children, title); c != nil {
			return c
		}
	}
	return nil
}

var (
	errNoPurpose      = errors.New("Spec must have a Purpose section")
	errNoRequirements = errors.New("Spec must have a Requirements section")
)

// ParseSpec reads a main spec as OpenSpec's MarkdownParser.parseSpec does.
func ParseSpec(name, content string) (Spec, error) {
	lines := strings.Split(jstext.NormalizeNewlines(content, true), "\n")
	mask := osFenceMask(lines)
	secs := parseMDSections(lines, mask)
	purpose := findMDSection(secs, "Purpose")
	if purpose == nil || purpose.content == "" {
		return Spec{}, errNoPurpose
	}
	reqs := findMDSection(secs, "Requirements")
	if reqs == nil {
		return Spec{}, errNoRequirements
	}
	sp := Spec{Name: name, Overview: jstext.Trim(purpose.content)}
	for _, child := range reqs.children {
		sp.Requirements = append(sp.Requirements, requirementOf(child))
	}
	return sp, nil
}

// requirementOf is MarkdownParser.parseRequirements for one child
// section: its text, and its scenarios that have a body.
func requirementOf(child *mdSection) Requirement {
	text := requirementBody(strings.Split(child.content, "\n"))
	if text == "" {
		text = jstext.Trim(child.title)
	}
	r := Requirement{Text: text}
	for _, sc := range child.children {
		if jstext.Trim(sc.content) != "" {
			r.Scenarios = append(r.Scenarios, sc.content)
		}
	}
	return r
}

// requirementBody is OpenSpec's extractRequirementBody: the trimmed,
// non-blank body lines up to the first header outside a fence, metadata
// lines (**ID**: …) kept only when nothing else is there.
func requirementBody(lines []string) string {
	mask := osFenceMask(lines)
	var captured, metadata []string
	for i, line := range lines {
		if mask[i] {
			continue
		}
		if headingLevel(line) > 0 {
			break
		}
		t := jstext.Trim(line)
		if t == "" {
			continue
		}
		if isMetadataLine(t) {
			metadata = append(metadata, t)
			continue
		}
		captured = append(captured, t)
	}
	if len(captured) > 0 {
		return strings.Join(captured, "\n")
	}
	return strings.Join(metadata, "\n")
}

// isMetadataLine matches /^\*\*[^*]+\*\*:/.
func isMetadataLine(s string) bool {
	if !strings.HasPrefix(s, "**") {
		return false
	}
	end := strings.Index(s[2:], "**:")
	if end <= 0 {
		return false
	}
	return !strings.Contains(s[2:2+end], "*")
}

// containsShallOrMust matches /\b(SHALL|MUST)\b/.
func containsShallOrMust(text string) bool {
	for _, kw := range []string{"SHALL", "MUST"} {
		for i := 0; ; {
			k := strings.Index(text[i:], kw)
			if k < 0 {
				break
			}
			at := i + k
			end := at + len(kw)
			if (at == 0 || !isWordByte(text[at-1])) && (end == len(text) || !isWordByte(text[end])) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || isDigit(b) || isASCIILetter(b)
}

// scenarioBodies returns the body of each #### header of a requirement
// block's lines (header excluded), up to the next header of level 4 or
// above outside a fence.
func scenarioBodies(lines []string) []string {
	mask := osFenceMask(lines)
	var out []string
	for i := range lines {
		if mask[i] || !isScenarioHeader(lines[i]) {
			continue
		}
		end := i + 1
		for end < len(lines) && (mask[end] || !isScenarioEnd(lines[end])) {
			end++
		}
		out = append(out, strings.Join(lines[i+1:end], "\n"))
	}
	return out
}

// isScenarioHeader matches /^####\s+/.
func isScenarioHeader(line string) bool {
	return strings.HasPrefix(line, "####") && jstext.SkipSpace(line, 4) > 4
}

// isScenarioEnd matches /^#{1,4}\s/.
func isScenarioEnd(line string) bool {
	l := headingLevel(line)
	return l > 0 && l <= 4
}

func countScenarios(lines []string) (withBody, empty int) {
	for _, b := range scenarioBodies(lines) {
		if jstext.Trim(b) != "" {
			withBody++
		} else {
			empty++
		}
	}
	return
}

// scenarioNames lists the scenario names of a requirement block, as
// OpenSpec compares them when MODIFIED replaces a block.
func scenarioNames(raw string) []string {
	lines := strings.Split(jstext.NormalizeNewlines(raw, false), "\n")
	mask := osFenceMask(lines)
	var names []string
	for i, l := range lines {
		if mask[i] || !isScenarioHeader(l) {
			continue
		}
		s := l[jstext.SkipSpace(l, 4):]
		t := strings.TrimRight(s, " \t")
		if u := strings.TrimRight(t, "#"); len(u) < len(t) {
			if v := strings.TrimRight(u, " \t"); len(v) < len(u) {
				s = v
			}
		}
		if jstext.HasPrefixFold(s, "scenario:") {
			s = s[jstext.SkipSpace(s, len("scenario:")):]
		}
		names = append(names, jstext.Trim(s))
	}
	return names
}

// missingScenarios returns the names current has that incoming lacks,
// counting duplicates.
func missingScenarios(current, incoming []string) []string {
	left := map[string]int{}
	for _, n := range incoming {
		left[n]++
	}
	var out []string
	for _, n := range current {
		if left[n] > 0 {
			left[n]--
		} else {
			out = append(out, n)
		}
	}
	return out
}

func isDigit(b byte) bool       { return b >= '0' && b <= '9' }
func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }
