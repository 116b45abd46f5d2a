package drift

import (
	"strconv"
	"strings"

	"github.com/specstack/specstack/conflict"
)

// Labels name the three versions of a requirement in conflict markers.
type Labels = conflict.Labels

// seg is a piece of a merged requirement: text, or a conflict between
// the live text (left) and the change's (right) over their base.
type seg struct {
	text              string
	conflict          bool
	base, left, right string
}

// Merged is a requirement merged three ways, ready to render.
type Merged struct {
	segs   []seg
	labels Labels
	n      int // marker length
}

// Conflicts is the number of conflict hunks the merge left.
func (m Merged) Conflicts() int {
	n := 0
	for _, s := range m.segs {
		if s.conflict {
			n++
		}
	}
	return n
}

// Render writes the merged requirement, numbering its conflicts from
// first (1-based) out of total, in git's marker style with the base
// ("|||||||"), which `resolve` reads: the first side is the live spec
// (ours), the second the change (theirs). It ends without a newline, as
// a requirement block does.
func (m Merged) Render(first, total int) string {
	var b strings.Builder
	k := first
	for _, s := range m.segs {
		if !s.conflict {
			b.WriteString(s.text)
			continue
		}
		sides := []conflict.Term{{Label: conflict.ParseLabel(m.labels.Left), Text: s.left}, {Label: conflict.ParseLabel(m.labels.Right), Text: s.right}}
		bases := []conflict.Term{{Label: conflict.ParseLabel(m.labels.Base), Text: s.base}}
		b.WriteString(conflict.Materialize(sides, bases, conflict.StyleGit, m.n, "conflict "+strconv.Itoa(k)+" of "+strconv.Itoa(total), "\n"))
		k++
	}
	return strings.TrimRight(b.String(), " \t\n")
}

// String renders the merge on its own.
func (m Merged) String() string { return m.Render(1, m.Conflicts()) }

// reqParts is a requirement block split for merging: its header line,
// the body up to the first scenario, and its scenarios.
type reqParts struct {
	header    string
	body      string
	scenarios []scenario
}

type scenario struct {
	name string
	text string // header line included, ending in one newline
}

// splitRequirement splits a requirement block (LF line ends) into its
// parts; a "#### " header outside a fenced code block starts a scenario.
func splitRequirement(raw string) reqParts {
	lines := strings.Split(strings.TrimRight(raw, " \t\n"), "\n")
	p := reqParts{header: lines[0]}
	var body []string
	var cur *scenario
	var buf []string
	fence := ""
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimRight(strings.Join(buf, "\n"), " \t\n") + "\n"
			p.scenarios = append(p.scenarios, *cur)
		}
	}
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " ")
		if fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
		} else if fence != "" && strings.HasPrefix(t, fence) {
			fence = ""
		} else if fence == "" && isScenarioHeader(l) {
			flush()
			cur = &scenario{name: scenarioName(l)}
			buf = []string{l}
			continue
		}
		if cur != nil {
			buf = append(buf, l)
		} else {
			body = append(body, l)
		}
	}
	flush()
	p.body = strings.TrimRight(strings.Join(body, "\n"), " \t\n")
	if p.body != "" {
		p.body += "\n"
	}
	return p
}

func isScenarioHeader(l string) bool {
	return strings.HasPrefix(l, "####") && len(l) > 4 && (l[4] == ' ' || l[4] == '\t')
}

func scenarioName(l string) string {
	s := strings.TrimSpace(strings.TrimLeft(l, "#"))
	s = strings.TrimSpace(strings.TrimRight(s, "#"))
	if len(s) >= 9 && strings.EqualFold(s[:9], "scenario:") {
		s = strings.TrimSpace(s[9:])
	}
	return s
}

func duplicateNames(p reqParts) bool {
	seen := map[string]bool{}
	for _, s := range p.scenarios {
		if seen[s.name] {
			return true
		}
		seen[s.name] = true
	}
	return false
}

func (p reqParts) find(name string) (string, bool) {
	for _, s := range p.scenarios {
		if s.name == name {
			return s.text, true
		}
	}
	return "", false
}

// MergeRequirement merges the change's requirement block (theirs) with
// the live one (ours), both derived from base: scenario by scenario first
// (matched by name, so scenarios added or edited on different sides all
// survive, live order first, then the change's new ones), then line by
// line within the body and within each scenario both sides edited. What
// both sides changed differently, or one side edited and the other
// deleted, is a conflict. The header is the change's.
func MergeRequirement(base, ours, theirs string, labels Labels) Merged {
	base, ours, theirs = lf(base), lf(ours), lf(theirs)
	m := Merged{labels: labels, n: conflict.MarkerLenFor(base, ours, theirs)}
	b, o, t := splitRequirement(base), splitRequirement(ours), splitRequirement(theirs)
	if duplicateNames(b) || duplicateNames(o) || duplicateNames(t) {
		m.segs = mergeText(withNL(base), withNL(ours), withNL(theirs))
		return m
	}
	m.segs = append(m.segs, seg{text: t.header + "\n"})
	// The body keeps its own leading blank line, if any.
	m.segs = append(m.segs, mergeText(b.body, o.body, t.body)...)
	var names []string
	seen := map[string]bool{}
	for _, s := range o.scenarios {
		names, seen[s.name] = append(names, s.name), true
	}
	for _, s := range t.scenarios {
		if !seen[s.name] {
			names, seen[s.name] = append(names, s.name), true
		}
	}
	for _, name := range names {
		bt, inB := b.find(name)
		ot, inO := o.find(name)
		tt, inT := t.find(name)
		var out []seg
		switch {
		case inO && inT && inB:
			out = mergeText(bt, ot, tt)
		case inO && inT:
			out = mergeText("", ot, tt)
		case inO && inB && ot == bt, inT && inB && tt == bt:
			// One side deleted a scenario the other left alone.
			continue
		case inO && inB:
			out = []seg{{conflict: true, base: bt, left: ot}}
		case inT && inB:
			out = []seg{{conflict: true, base: bt, right: tt}}
		case inO:
			out = []seg{{text: ot}}
		default:
			out = []seg{{text: tt}}
		}
		m.segs = append(m.segs, seg{text: "\n"})
		m.segs = append(m.segs, out...)
	}
	return m
}

// mergeText merges three texts line by line into segments.
func mergeText(base, left, right string) []seg {
	var out []seg
	var b strings.Builder
	for _, c := range conflict.Chunks(conflict.SplitLines(base), conflict.SplitLines(left), conflict.SplitLines(right)) {
		if c.Kind != conflict.Conflicting {
			for _, l := range c.Merged() {
				b.WriteString(l)
			}
			continue
		}
		if b.Len() > 0 {
			out = append(out, seg{text: b.String()})
			b.Reset()
		}
		out = append(out, seg{conflict: true, base: strings.Join(c.Base, ""), left: strings.Join(c.Left, ""), right: strings.Join(c.Right, "")})
	}
	if b.Len() > 0 {
		out = append(out, seg{text: b.String()})
	}
	return out
}

func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func withNL(s string) string {
	s = strings.TrimRight(s, " \t\n")
	if s == "" {
		return ""
	}
	return s + "\n"
}
