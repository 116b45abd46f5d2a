package spec

import (
	"strings"
	"unicode/utf8"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// Requirement blocks and delta plans, following OpenSpec 1.13's
// core/parsers/requirement-blocks.js: the reader archive and validate use.

// NormalizeRequirementName drops an ATX closing run ("Foo ###" → "Foo")
// and surrounding whitespace. Requirement matching compares these names
// exactly (case-sensitively).
func NormalizeRequirementName(name string) string {
	s := strings.TrimRight(name, " \t")
	if t := strings.TrimRight(s, "#"); len(t) < len(s) {
		if u := strings.TrimRight(t, " \t"); len(u) < len(t) {
			name = u
		}
	}
	return jstext.Trim(name)
}

// FoldRequirementName folds case and interior whitespace; OpenSpec uses it
// only to catch near-miss typos, never to match.
func FoldRequirementName(name string) string {
	s := strings.ToLower(NormalizeRequirementName(name))
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if jstext.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// requirementHeader matches OpenSpec's REQUIREMENT_HEADER_REGEX,
// /^###\s*Requirement:\s*(.+)\s*$/i, returning the raw name group.
func requirementHeader(line string) (string, bool) {
	if !strings.HasPrefix(line, "###") {
		return "", false
	}
	i := jstext.SkipSpace(line, 3)
	if !jstext.HasPrefixFold(line[i:], "requirement:") {
		return "", false
	}
	return jstext.SpaceRestSpace(line[i+len("requirement:"):])
}

// isH2 matches /^##\s+/: a top-level section header in the delta reader.
func isH2(line string) bool {
	return strings.HasPrefix(line, "##") && jstext.SkipSpace(line, 2) > 2
}

// h2Title matches /^(##)\s+(.+)$/ and returns the trimmed title.
func h2Title(line string) (string, bool) {
	if !strings.HasPrefix(line, "##") {
		return "", false
	}
	rest, ok := jstext.SpaceThenRest(line[2:], 1)
	if !ok {
		return "", false
	}
	return jstext.Trim(rest), true
}

// isRequirementsHeader matches /^##\s+Requirements\s*$/i.
func isRequirementsHeader(line string) bool {
	if !isH2(line) {
		return false
	}
	i := jstext.SkipSpace(line, 2)
	return jstext.HasPrefixFold(line[i:], "requirements") && jstext.IsAllSpace(line[i+len("requirements"):])
}

// Block is one requirement: its header line, normalised name and raw text
// (header included, trailing whitespace trimmed).
type Block struct {
	HeaderLine string
	Name       string
	Raw        string
}

// RequirementsSection is a spec split around its "## Requirements" section.
type RequirementsSection struct {
	Before     string
	HeaderLine string
	Preamble   string
	Blocks     []Block
	After      string
}

// ExtractRequirementsSection splits a main spec for merging.
func ExtractRequirementsSection(content string) RequirementsSection {
	normalized := jstext.NormalizeNewlines(content, true)
	lines := strings.Split(normalized, "\n")
	mask := osFenceMask(lines)
	reqIdx := -1
	for i, l := range lines {
		if !mask[i] && isRequirementsHeader(l) {
			reqIdx = i
			break
		}
	}
	if reqIdx < 0 {
		before := jstext.TrimEnd(content)
		if before != "" {
			before += "\n\n"
		}
		return RequirementsSection{Before: before, HeaderLine: "## Requirements", After: "\n"}
	}
	end := len(lines)
	for i := reqIdx + 1; i < len(lines); i++ {
		if !mask[i] && isH2(lines[i]) {
			end = i
			break
		}
	}
	body := lines[reqIdx+1 : end]
	bmask := mask[reqIdx+1 : end]
	isReq := func(c int) bool {
		if bmask[c] {
			return false
		}
		_, ok := requirementHeader(body[c])
		return ok
	}
	isTop := func(c int) bool { return !bmask[c] && isH2(body[c]) }
	var sec RequirementsSection
	c := 0
	var pre []string
	for c < len(body) && !isReq(c) {
		pre = append(pre, body[c])
		c++
	}
	for c < len(body) {
		if !isReq(c) {
			c++
			continue
		}
		header := body[c]
		m, _ := requirementHeader(header)
		c++
		buf := []string{header}
		for c < len(body) && !isReq(c) && !isTop(c) {
			buf = append(buf, body[c])
			c++
		}
		sec.Blocks = append(sec.Blocks, Block{HeaderLine: header, Name: NormalizeRequirementName(m), Raw: jstext.TrimEnd(strings.Join(buf, "\n"))})
	}
	before := strings.Join(lines[:reqIdx], "\n")
	if jstext.TrimEnd(before) != "" {
		before += "\n"
	}
	after := strings.Join(lines[end:], "\n")
	if !strings.HasPrefix(after, "\n") {
		after = "\n" + after
	}
	sec.Before = before
	sec.HeaderLine = lines[reqIdx]
	sec.Preamble = jstext.TrimEnd(strings.Join(pre, "\n"))
	sec.After = after
	return sec
}

// Rename is one RENAMED pair.
type Rename struct{ From, To string }

// Unpaired is a FROM: or TO: line that never formed a pair.
type Unpaired struct {
	Side string // "FROM" or "TO"
	Name string
	Line int
}

// Orphan is a requirement header outside every delta section.
type Orphan struct {
	Name    string
	Section string // "" when above the first "## " section
	HasSec  bool
	Line    int
}

// Skipped is a non-requirement ### header inside ADDED or MODIFIED.
type Skipped struct {
	Header  string
	Section string
	Line    int
}

// DeltaPlan is a parsed delta spec.
type DeltaPlan struct {
	Added, Modified []Block
	Removed         []string
	RemovedBlocks   []Block // REMOVED entries in the header form, with their bodies
	Renamed         []Rename
	Unpaired        []Unpaired
	Orphans         []Orphan
	Skipped         []Skipped
	HasAdded        bool
	HasModified     bool
	HasRemoved      bool
	HasRenamed      bool
}

// HasSections reports whether any delta section header was found.
func (p DeltaPlan) HasSections() bool {
	return p.HasAdded || p.HasModified || p.HasRemoved || p.HasRenamed
}

// Ops is the number of operations the plan holds.
func (p DeltaPlan) Ops() int {
	return len(p.Added) + len(p.Modified) + len(p.Removed) + len(p.Renamed)
}

type deltaSection struct {
	title     string
	lines     []string
	mask      []bool
	startLine int // 1-based line of the first body line
}

var deltaTitles = map[string]bool{
	"added requirements": true, "modified requirements": true,
	"removed requirements": true, "renamed requirements": true,
}

// ParseDelta parses a delta spec.
func ParseDelta(content string) DeltaPlan {
	lines := strings.Split(jstext.NormalizeNewlines(content, true), "\n")
	mask := osFenceMask(lines)
	var secs []deltaSection
	type idx struct {
		title string
		i     int
	}
	var heads []idx
	for i, l := range lines {
		if mask[i] {
			continue
		}
		if t, ok := h2Title(l); ok {
			heads = append(heads, idx{t, i})
		}
	}
	for k, h := range heads {
		end := len(lines)
		if k+1 < len(heads) {
			end = heads[k+1].i
		}
		secs = append(secs, deltaSection{title: h.title, lines: lines[h.i+1 : end], mask: mask[h.i+1 : end], startLine: h.i + 2})
	}
	lookup := func(desired string) (string, []deltaSection) {
		var out []deltaSection
		title := desired
		for _, s := range secs {
			if strings.ToLower(s.title) == strings.ToLower(desired) {
				if out == nil {
					title = s.title
				}
				out = append(out, s)
			}
		}
		return title, out
	}
	var p DeltaPlan
	addTitle, adds := lookup("ADDED Requirements")
	modTitle, mods := lookup("MODIFIED Requirements")
	_, rems := lookup("REMOVED Requirements")
	_, rens := lookup("RENAMED Requirements")
	p.HasAdded, p.HasModified, p.HasRemoved, p.HasRenamed = len(adds) > 0, len(mods) > 0, len(rems) > 0, len(rens) > 0
	for _, s := range adds {
		p.Added = append(p.Added, parseBlocks(s, addTitle, &p.Skipped)...)
	}
	for _, s := range mods {
		p.Modified = append(p.Modified, parseBlocks(s, modTitle, &p.Skipped)...)
	}
	for _, s := range rems {
		p.Removed = append(p.Removed, parseRemoved(s)...)
		p.RemovedBlocks = append(p.RemovedBlocks, parseBlocks(s, "", nil)...)
	}
	for _, s := range rens {
		p.Renamed = append(p.Renamed, parseRenamed(s, &p.Unpaired)...)
	}
	sortByLine(p.Unpaired, func(u Unpaired) int { return u.Line })
	sortByLine(p.Skipped, func(s Skipped) int { return s.Line })
	p.Orphans = findOrphans(lines, mask)
	return p
}

func sortByLine[T any](xs []T, line func(T) int) {
	// Insertion sort: stable, and these lists are tiny.
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && line(xs[j]) < line(xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func findOrphans(lines []string, mask []bool) []Orphan {
	var out []Orphan
	sec, has := "", false
	for i, l := range lines {
		if mask[i] {
			continue
		}
		if t, ok := h2Title(l); ok {
			sec, has = t, true
			continue
		}
		if has && deltaTitles[strings.ToLower(sec)] {
			continue
		}
		if m, ok := requirementHeader(l); ok {
			out = append(out, Orphan{Name: NormalizeRequirementName(m), Section: sec, HasSec: has, Line: i + 1})
		}
	}
	return out
}

// h3Skipped matches /^###\s+(.+?)\s*$/ for a header that is not a
// requirement header, returning the trimmed text.
func h3Skipped(line string) (string, bool) {
	if !strings.HasPrefix(line, "###") {
		return "", false
	}
	rest, ok := jstext.SpaceThenRest(line[3:], 1)
	if !ok {
		// (.+?)\s*$ also accepts trailing line terminators.
		x := line[3:]
		if jstext.SkipSpace(x, 0) == 0 {
			return "", false
		}
		r, ok2 := jstext.SpaceRestSpace(x[jstext.SkipSpace(x, 0):])
		if !ok2 {
			return "", false
		}
		rest = r
	}
	return jstext.Trim(rest), true
}

func parseBlocks(s deltaSection, title string, sink *[]Skipped) []Block {
	lines, mask := s.lines, s.mask
	isReq := func(i int) bool {
		if mask[i] {
			return false
		}
		_, ok := requirementHeader(lines[i])
		return ok
	}
	record := func(i int) {
		if sink == nil || mask[i] {
			return
		}
		if h, ok := h3Skipped(lines[i]); ok && !isReq(i) {
			*sink = append(*sink, Skipped{Header: h, Section: title, Line: s.startLine + i})
		}
	}
	var blocks []Block
	i := 0
	for i < len(lines) {
		for i < len(lines) && !isReq(i) {
			record(i)
			i++
		}
		if i >= len(lines) {
			break
		}
		header := lines[i]
		m, _ := requirementHeader(header)
		buf := []string{header}
		i++
		for i < len(lines) && !isReq(i) && !(!mask[i] && isH2(lines[i])) {
			record(i)
			buf = append(buf, lines[i])
			i++
		}
		blocks = append(blocks, Block{HeaderLine: header, Name: NormalizeRequirementName(m), Raw: jstext.TrimEnd(strings.Join(buf, "\n"))})
	}
	return blocks
}

// bulletRequirement matches the REMOVED bullet form
// /^\s*[-*+]\s*`?###\s*Requirement:\s*(.+?)`?\s*$/ and, with a keyword,
// the RENAMED form /^\s*[-*+]?\s*KEY:\s*`?###\s*Requirement:\s*(.+?)`?\s*$/.
func bulletRequirement(line, keyword string, bulletRequired bool) (string, bool) {
	i := jstext.SkipSpace(line, 0)
	if _, after, ok := osBullet.Marker(line); ok {
		i = jstext.SkipSpace(line, after)
	} else if bulletRequired {
		return "", false
	}
	if keyword != "" {
		if !strings.HasPrefix(line[i:], keyword+":") {
			return "", false
		}
		i = jstext.SkipSpace(line, i+len(keyword)+1)
	}
	if strings.HasPrefix(line[i:], "`") {
		i++
	}
	if !strings.HasPrefix(line[i:], "###") {
		return "", false
	}
	i = jstext.SkipSpace(line, i+3)
	if !strings.HasPrefix(line[i:], "Requirement:") {
		return "", false
	}
	x := line[i+len("Requirement:"):]
	// \s*(.+?)`?\s*$ : a lazy name, so trailing spaces and one backtick go.
	j := jstext.SkipSpace(x, 0)
	rest := x[j:]
	if rest == "" {
		// \s* gives one character back to (.+?).
		if j == 0 {
			return "", false
		}
		r, size := utf8.DecodeLastRuneInString(x)
		if jstext.IsLineTerminator(r) {
			return "", false
		}
		return x[j-size:], true
	}
	end := jstext.LineEnd(rest, 0)
	if !jstext.IsAllSpace(rest[end:]) {
		return "", false
	}
	name := jstext.TrimEnd(rest[:end])
	if len(name) > 1 && strings.HasSuffix(name, "`") {
		name = name[:len(name)-1]
	}
	return name, true
}

func parseRemoved(s deltaSection) []string {
	var names []string
	for i, l := range s.lines {
		if s.mask[i] {
			continue
		}
		if m, ok := requirementHeader(l); ok {
			names = append(names, NormalizeRequirementName(m))
			continue
		}
		if m, ok := bulletRequirement(l, "", true); ok {
			names = append(names, NormalizeRequirementName(m))
		}
	}
	return names
}

func parseRenamed(s deltaSection, unpaired *[]Unpaired) []Rename {
	var pairs []Rename
	var pending *Unpaired
	for i, l := range s.lines {
		if s.mask[i] {
			continue
		}
		if m, ok := bulletRequirement(l, "FROM", false); ok {
			if pending != nil {
				*unpaired = append(*unpaired, *pending)
			}
			pending = &Unpaired{Side: "FROM", Name: NormalizeRequirementName(m), Line: s.startLine + i}
		} else if m, ok := bulletRequirement(l, "TO", false); ok {
			to := NormalizeRequirementName(m)
			if pending == nil {
				*unpaired = append(*unpaired, Unpaired{Side: "TO", Name: to, Line: s.startLine + i})
				continue
			}
			pairs = append(pairs, Rename{From: pending.Name, To: to})
			pending = nil
		}
	}
	if pending != nil {
		*unpaired = append(*unpaired, *pending)
	}
	return pairs
}
