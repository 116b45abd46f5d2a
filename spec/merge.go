package spec

import (
	"fmt"
	"strings"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// Counts are the operations a merge applied.
type Counts struct {
	Added    int `json:"added"`
	Modified int `json:"modified"`
	Removed  int `json:"removed"`
	Renamed  int `json:"renamed"`
}

// Total is the number of applied operations.
func (c Counts) Total() int { return c.Added + c.Modified + c.Removed + c.Renamed }

// MergeError is a delta that cannot be merged into its spec. It names the
// capability; Msg says which requirement and what to fix.
type MergeError struct {
	Capability string
	Msg        string
}

func (e *MergeError) Error() string { return e.Msg }

// Merged is a delta applied to a main spec, in memory.
type Merged struct {
	Content  string // the new spec, LF line endings
	Counts   Counts
	Warnings []string
	Created  bool // the spec did not exist
}

// Merge applies the delta spec text to the main spec of capability id
// (target; exists=false when there is none), exactly as OpenSpec 1.13's
// buildUpdatedSpec does: RENAMED → REMOVED → MODIFIED → ADDED, already
// applied operations are no-ops, a new spec takes only ADDED, and a
// MODIFIED block may not drop a scenario. targetPath is the main spec's
// path as OpenSpec names it in a warning (absolute, under the real root).
func Merge(id, changeName, delta, target, targetPath string, exists bool) (*Merged, error) {
	fail := func(format string, args ...any) (*Merged, error) {
		return nil, &MergeError{Capability: id, Msg: fmt.Sprintf(format, args...)}
	}
	plan := ParseDelta(delta)
	m := &Merged{}
	warn := func(format string, args ...any) { m.Warnings = append(m.Warnings, fmt.Sprintf(format, args...)) }
	if len(plan.Unpaired) > 0 {
		u := plan.Unpaired[0]
		missing := "TO"
		if u.Side == "TO" {
			missing = "FROM"
		}
		return fail("%s validation failed - RENAMED entry on line %d has no matching %s: for header \"### Requirement: %s\". Write each rename as a FROM: line followed immediately by its TO: line.", id, u.Line, missing, u.Name)
	}
	for _, o := range plan.Orphans {
		where := `above the first "## " section`
		if o.HasSec {
			where = fmt.Sprintf("under \"## %s\"", o.Section)
		}
		warn("%s - requirement \"%s\" (line %d) is %s, which is not a delta section, so it was not applied. Move it under ADDED/MODIFIED/REMOVED/RENAMED Requirements.", id, o.Name, o.Line, where)
	}
	c := checkDelta(plan)
	for i, b := range plan.Added {
		if c.dupAdded[i] {
			return fail("%s validation failed - duplicate requirement in ADDED for header \"### Requirement: %s\"", id, b.Name)
		}
	}
	for i, b := range plan.Modified {
		if c.dupModified[i] {
			return fail("%s validation failed - duplicate requirement in MODIFIED for header \"### Requirement: %s\"", id, b.Name)
		}
	}
	for i, r := range plan.Removed {
		if c.dupRemoved[i] {
			return fail("%s validation failed - duplicate requirement in REMOVED for header \"### Requirement: %s\"", id, r)
		}
	}
	for i, r := range plan.Renamed {
		if c.dupFrom[i] {
			return fail("%s validation failed - duplicate FROM in RENAMED for header \"### Requirement: %s\"", id, r.From)
		}
		if c.dupTo[i] {
			return fail("%s validation failed - duplicate TO in RENAMED for header \"### Requirement: %s\"", id, r.To)
		}
	}
	for i, r := range plan.Renamed {
		rc := c.renames[i]
		if rc.removed {
			extra := ""
			if rc.removedAs != "" {
				extra = fmt.Sprintf(" (REMOVED spells it \"%s\")", rc.removedAs)
			}
			return fail("%s validation failed - requirement present in multiple sections (RENAMED and REMOVED) for header \"### Requirement: %s\"%s", id, r.From, extra)
		}
		if rc.modified {
			return fail("%s validation failed - when a rename exists, MODIFIED must reference the NEW header \"### Requirement: %s\"", id, r.To)
		}
		if rc.addedTarget {
			return fail("%s validation failed - RENAMED TO header collides with ADDED for \"### Requirement: %s\"", id, r.To)
		}
	}
	if len(c.both) > 0 {
		b := c.both[0]
		return fail("%s validation failed - requirement present in multiple sections (%s and %s) for header \"### Requirement: %s\"", id, b.a, b.b, b.name)
	}
	if plan.Ops() == 0 {
		return fail("Delta parsing found no operations for %s. Provide ADDED/MODIFIED/REMOVED/RENAMED sections in change spec.", id)
	}

	deltaPurpose, hasDeltaPurpose := purposeSection(delta)
	isNew := false
	if exists {
		if hasDeltaPurpose {
			if p, ok := purposeSection(target); ok && p != deltaPurpose {
				warn("%s - delta Purpose ignored; %s already has one. Edit %s directly to change it.", id, id, targetPath)
			}
		}
	} else {
		if len(plan.Modified) > 0 || len(plan.Renamed) > 0 {
			return fail("%s: target spec does not exist; only ADDED requirements are allowed for new specs. MODIFIED and RENAMED operations require an existing spec.", id)
		}
		if len(plan.Removed) > 0 {
			warn("%s - %d REMOVED requirement(s) ignored for new spec (nothing to remove).", id, len(plan.Removed))
		}
		isNew = true
		m.Created = true
		target = specSkeleton(id, changeName, deltaPurpose)
		if hasDeltaPurpose {
			overview, ok := readableOverview(target, id)
			if !ok {
				target = specSkeleton(id, changeName, "")
				warn("%s - delta Purpose ignored (it would leave the new spec unreadable); wrote the placeholder Purpose instead.", id)
			} else if jsLen(overview) < minPurposeLength {
				warn("%s - carried Purpose is under %d characters; openspec validate --strict reports it as too brief.", id, minPurposeLength)
			}
		}
	}
	if si := mainSpecStructureIssues(target); len(si) > 0 {
		var details []string
		for _, s := range si {
			details = append(details, fmt.Sprintf("line %d: %s", s.Line, s.Message))
		}
		return fail("%s: target spec is structurally invalid and cannot be updated until fixed:\n%s", id, strings.Join(details, "\n"))
	}

	parts := ExtractRequirementsSection(target)
	reqs := newRequirementIndex()
	byName := reqs.byName
	keys := make([]string, len(parts.Blocks))
	keyAt := map[string]int{} // key → its index in keys, for renames
	for i, b := range parts.Blocks {
		k := NormalizeRequirementName(b.Name)
		reqs.set(k, b)
		keys[i] = k
		if _, ok := keyAt[k]; !ok {
			keyAt[k] = i
		}
	}
	set, del, nearMiss := reqs.set, reqs.del, reqs.nearMiss

	for _, r := range plan.Renamed {
		f, t := NormalizeRequirementName(r.From), NormalizeRequirementName(r.To)
		if _, ok := byName[f]; !ok {
			if _, ok := byName[t]; ok {
				if k, ok := nearMiss(f, func(k string) bool { return k == t }); ok {
					return fail("%s RENAMED failed for header \"### Requirement: %s\" - source not found, but \"### Requirement: %s\" exists; fix the header to match it exactly", id, r.From, byName[k].Name)
				}
				continue
			}
			return fail("%s RENAMED failed for header \"### Requirement: %s\" - source not found", id, r.From)
		}
		if _, ok := byName[t]; ok {
			return fail("%s RENAMED failed for header \"### Requirement: %s\" - target already exists", id, r.To)
		}
		if k, ok := nearMiss(t, func(k string) bool { return k == f }); ok {
			return fail("%s RENAMED failed for header \"### Requirement: %s\" - \"### Requirement: %s\" already exists and differs only in case or spacing; choose a distinct name", id, r.To, byName[k].Name)
		}
		b := byName[f]
		header := "### Requirement: " + t
		lines := strings.Split(b.Raw, "\n")
		lines[0] = header
		del(f)
		set(t, Block{HeaderLine: header, Name: t, Raw: strings.Join(lines, "\n")})
		if i, ok := keyAt[f]; ok {
			keys[i] = t
			delete(keyAt, f)
			if _, taken := keyAt[t]; !taken {
				keyAt[t] = i
			}
		}
		m.Counts.Renamed++
	}
	for _, name := range plan.Removed {
		k := NormalizeRequirementName(name)
		if _, ok := byName[k]; !ok {
			if !isNew {
				if nm, ok := nearMiss(k, nil); ok {
					return fail("%s REMOVED failed for header \"### Requirement: %s\" - not found, but \"### Requirement: %s\" exists; fix the header to match it exactly", id, name, byName[nm].Name)
				}
				warn("%s - REMOVED requirement \"%s\" is not in the current spec; treating it as already removed.", id, name)
			}
			continue
		}
		del(k)
		m.Counts.Removed++
	}
	for _, mod := range plan.Modified {
		k := NormalizeRequirementName(mod.Name)
		cur, ok := byName[k]
		if !ok {
			return fail("%s MODIFIED failed for header \"### Requirement: %s\" - not found", id, mod.Name)
		}
		first := strings.SplitN(mod.Raw, "\n", 2)[0]
		if h, ok := requirementHeader(first); !ok || NormalizeRequirementName(h) != k {
			return fail("%s MODIFIED failed for header \"### Requirement: %s\" - header mismatch in content", id, mod.Name)
		}
		curNames, modNames := scenarioNames(cur.Raw), scenarioNames(mod.Raw)
		if missing := missingScenarios(curNames, modNames); len(missing) > 0 {
			return fail("%s MODIFIED failed for header \"### Requirement: %s\" - current spec contains scenario(s) not present in the modified block: %s. %s Refresh the change spec before archiving to avoid dropping scenarios.", id, mod.Name, quoteList(missing), scenarioBalance(curNames, modNames))
		}
		if normalizeBlockRaw(cur.Raw) != normalizeBlockRaw(mod.Raw) {
			m.Counts.Modified++
		}
		set(k, mod)
	}
	for _, add := range plan.Added {
		k := NormalizeRequirementName(add.Name)
		if ex, ok := byName[k]; ok {
			if normalizeBlockRaw(ex.Raw) == normalizeBlockRaw(add.Raw) {
				continue
			}
			return fail("%s ADDED failed for header \"### Requirement: %s\" - already exists", id, add.Name)
		}
		if nm, ok := nearMiss(k, nil); ok {
			return fail("%s ADDED failed for header \"### Requirement: %s\" - \"### Requirement: %s\" already exists and differs only in case or spacing; use MODIFIED with that exact header to change it, or choose a distinct name", id, add.Name, byName[nm].Name)
		}
		set(k, add)
		m.Counts.Added++
	}

	var kept []string
	seen := map[string]bool{}
	for i := range parts.Blocks {
		if b, ok := byName[keys[i]]; ok {
			kept = append(kept, b.Raw)
			seen[keys[i]] = true
		}
	}
	for _, k := range reqs.keys() {
		if !seen[k] {
			kept = append(kept, byName[k].Raw)
		}
	}
	var bodyParts []string
	if jstext.Trim(parts.Preamble) != "" {
		bodyParts = append(bodyParts, jstext.TrimEnd(parts.Preamble))
	}
	bodyParts = append(bodyParts, kept...)
	reqBody := jstext.TrimEnd(strings.Join(bodyParts, "\n\n"))
	var slices []string
	for _, s := range []string{jstext.TrimEnd(parts.Before), parts.HeaderLine, reqBody, jstext.Trim(parts.After)} {
		if s != "" {
			slices = append(slices, s)
		}
	}
	m.Content = jstext.TrimEnd(collapseBlankRuns(strings.Join(slices, "\n\n"))) + "\n"
	return m, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, ", ")
}

// scenarioBalance is OpenSpec's describeScenarioBalance.
func scenarioBalance(current, incoming []string) string {
	count := func(n int) string {
		if n == 1 {
			return "1 scenario"
		}
		return fmt.Sprintf("%d scenarios", n)
	}
	added := missingScenarios(incoming, current)
	scale := fmt.Sprintf("The modified block has %s; the current spec has %s.", count(len(incoming)), count(len(current)))
	if len(added) == 0 {
		return scale + " It adds none."
	}
	listed := added
	rest := 0
	if len(listed) > 3 {
		rest = len(listed) - 3
		listed = listed[:3]
	}
	names := quoteList(listed)
	if rest > 0 {
		names = fmt.Sprintf("%s and %d more", names, rest)
	}
	return fmt.Sprintf("%s It adds %s not in the current spec: %s.", scale, count(len(added)), names)
}

func normalizeBlockRaw(raw string) string { return jstext.Trim(jstext.NormalizeNewlines(raw, false)) }

// collapseBlankRuns collapses runs of empty lines to one, outside fences.
func collapseBlankRuns(content string) string {
	lines := strings.Split(content, "\n")
	mask := osFenceMask(lines)
	kept := lines[:0:0]
	run := 0
	for i, l := range lines {
		if mask[i] {
			run = 0
			kept = append(kept, l)
			continue
		}
		if l == "" {
			run++
			if run > 1 {
				continue
			}
			kept = append(kept, l)
			continue
		}
		run = 0
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// Placeholder Purpose that archive writes into a spec it creates.
const (
	purposePlaceholderPrefix = "TBD - created by archiving change "
	purposePlaceholderSuffix = ". Update Purpose after archive."
)

func specSkeleton(id, changeName, purpose string) string {
	body := jstext.Trim(purpose)
	if body == "" {
		body = purposePlaceholderPrefix + changeName + purposePlaceholderSuffix
	}
	return "# " + id + " Specification\n\n## Purpose\n" + body + "\n\n## Requirements\n"
}

// readableOverview is the Purpose a new spec would end up with, or false
// when carrying the delta's over would leave it unreadable.
func readableOverview(skeleton, id string) (string, bool) {
	if strings.Contains(skeleton, "<!--") || len(mainSpecStructureIssues(skeleton)) > 0 {
		return "", false
	}
	sp, err := ParseSpec(id, skeleton)
	if err != nil || jstext.Trim(sp.Overview) == "" {
		return "", false
	}
	return jstext.Trim(sp.Overview), true
}

// maskHTMLComments blanks <!-- … --> spans (an unterminated one runs to
// the end), keeping newlines so line indexes stay aligned.
func maskHTMLComments(content string) string {
	blank := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r == '\n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	var out strings.Builder
	i := 0
	for {
		open := strings.Index(content[i:], "<!--")
		if open < 0 {
			out.WriteString(content[i:])
			return out.String()
		}
		open += i
		out.WriteString(content[i:open])
		end := -1
		for j := open + 4; j < len(content); j++ {
			if strings.HasPrefix(content[j:], "-->") {
				end = j + 3
				break
			}
			if strings.HasPrefix(content[j:], "--!>") {
				end = j + 4
				break
			}
		}
		if end < 0 {
			out.WriteString(blank(content[open:]))
			return out.String()
		}
		out.WriteString(blank(content[open:end]))
		i = end
	}
}

// isPurposeHeader matches /^##\s+Purpose\s*$/i.
func isPurposeHeader(line string) bool {
	if !isH2(line) {
		return false
	}
	i := jstext.SkipSpace(line, 2)
	return jstext.HasPrefixFold(line[i:], "purpose") && jstext.IsAllSpace(line[i+len("purpose"):])
}

// purposeSection returns the body of the first real "## Purpose" section,
// ignoring fences and HTML comments; false when absent or blank.
func purposeSection(content string) (string, bool) {
	normalized := jstext.NormalizeNewlines(content, false)
	lines := strings.Split(normalized, "\n")
	masked := strings.Split(maskHTMLComments(normalized), "\n")
	fm := osFenceMask(masked)
	start := -1
	for i, l := range masked {
		if !fm[i] && isPurposeHeader(l) {
			start = i
			break
		}
	}
	if start < 0 {
		return "", false
	}
	end := len(masked)
	for i := start + 1; i < len(masked); i++ {
		if !fm[i] && isH2(masked[i]) {
			end = i
			break
		}
	}
	var prose []string
	for i := start + 1; i < end; i++ {
		if !fm[i] {
			prose = append(prose, masked[i])
		}
	}
	if jstext.Trim(strings.Join(prose, "\n")) == "" {
		return "", false
	}
	body := jstext.Trim(strings.Join(lines[start+1:end], "\n"))
	return body, body != ""
}

// jsLen is a string's length in UTF-16 code units, as JavaScript counts.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}
