package spec

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec/tasksmd"
)

// Separability decides whether a change's task groups can be worked on by
// concurrent workers (fan-out) or need a single worker, following the
// reference jj-openspec skill, section A: each group's file area is the
// paths and globs its lines name; two groups are separable only when their
// areas are disjoint and neither states an ordering dependency on the
// other; fan-out needs at least two separable groups passing a size gate.
// Any doubt resolves to a single worker, and the verdict says why.

// GroupArea is one group with its derived file area and dependencies.
type GroupArea struct {
	Number         string       `json:"number"`
	Title          string       `json:"title"`
	Tasks          int          `json:"tasks"`
	Open           int          `json:"open"` // unchecked tasks
	Area           []string     `json:"area"` // paths and globs
	Undeterminable bool         `json:"undeterminable"`
	DependsOn      []Dependency `json:"depends_on,omitempty"`
}

// Dependency is an ordering dependency a group's prose states.
type Dependency struct {
	On       string `json:"on"` // group number, or "*" when no group is named
	Sentence string `json:"sentence"`
}

// Verdict is the separability decision with its reasons.
type Verdict struct {
	FanOut  bool        `json:"fan_out"`
	Workers []string    `json:"workers,omitempty"` // groups to fan out, one worker each
	Later   []string    `json:"later,omitempty"`   // small separable groups left to the integrating worker
	Groups  []GroupArea `json:"groups"`
	Reasons []string    `json:"reasons"`
}

// SeparabilityOptions tunes the gate.
type SeparabilityOptions struct {
	MinGroupTasks int // open tasks a group needs to earn a worker (default 2)
	MinGroups     int // groups needed to fan out (default 2)
}

// Separability computes the verdict for a parsed tasks file; content is
// the file's text (the prose between tasks is read for dependencies).
func Separability(content string, opts SeparabilityOptions) Verdict {
	if opts.MinGroupTasks <= 0 {
		opts.MinGroupTasks = 2
	}
	if opts.MinGroups <= 0 {
		opts.MinGroups = 2
	}
	tf := ParseTasks(content)
	v := Verdict{Groups: []GroupArea{}}
	single := func(format string, args ...any) Verdict {
		v.FanOut, v.Workers, v.Later = false, nil, nil
		v.Reasons = append(v.Reasons, fmt.Sprintf(format, args...))
		return v
	}
	bodies := groupBodies(content, tf)
	for i, g := range tf.Groups {
		ga := GroupArea{Number: groupKey(g, i), Title: g.Title, Tasks: len(g.Tasks)}
		for _, t := range g.Tasks {
			if !t.Checked {
				ga.Open++
			}
		}
		seen := map[string]bool{}
		for _, line := range append([]string{g.Title}, bodies[i]...) {
			for _, p := range pathsIn(line) {
				if !seen[p] {
					seen[p] = true
					ga.Area = append(ga.Area, p)
				}
			}
		}
		sort.Strings(ga.Area)
		ga.Undeterminable = len(ga.Area) == 0
		v.Groups = append(v.Groups, ga)
	}
	for i := range v.Groups {
		v.Groups[i].DependsOn = dependencies(bodies[i], v.Groups, i)
	}
	if len(tf.Groups) == 0 {
		return single("tasks.md has no \"## \" groups: a flat list runs on one worker")
	}
	ungrouped := len(tf.Tasks)
	for _, g := range tf.Groups {
		ungrouped -= len(g.Tasks)
	}
	if ungrouped > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%s %s above the first group, outside any group", plural.Count(ungrouped, "task", "tasks"), plural.Word(ungrouped, "sits", "sit")))
	}
	var active []GroupArea
	for _, g := range v.Groups {
		if g.Open > 0 {
			active = append(active, g)
		}
	}
	if len(active) < 2 {
		return single("only %s %s unchecked tasks", plural.Count(len(active), "group", "groups"), plural.Word(len(active), "has", "have"))
	}
	for _, g := range active {
		if g.Undeterminable {
			v.Reasons = append(v.Reasons, fmt.Sprintf("group %s (%s) names no file path or glob: its area is undeterminable", g.Number, g.Title))
		}
		for _, d := range g.DependsOn {
			if d.On == "*" {
				v.Reasons = append(v.Reasons, fmt.Sprintf("group %s states a dependency without naming the group: %q", g.Number, d.Sentence))
			} else if isActive(active, d.On) {
				v.Reasons = append(v.Reasons, fmt.Sprintf("group %s depends on group %s: %q", g.Number, d.On, d.Sentence))
			}
		}
	}
	for i := 0; i < len(active); i++ {
		for j := i + 1; j < len(active); j++ {
			if a, b, ok := areasOverlap(active[i].Area, active[j].Area); ok {
				v.Reasons = append(v.Reasons, fmt.Sprintf("groups %s and %s overlap: %s and %s", active[i].Number, active[j].Number, a, b))
			}
		}
	}
	if len(v.Reasons) > 0 {
		return single("any doubt resolves to a single worker")
	}
	for _, g := range active {
		if g.Open >= opts.MinGroupTasks {
			v.Workers = append(v.Workers, g.Number)
		} else {
			v.Later = append(v.Later, g.Number)
		}
	}
	if len(v.Workers) < opts.MinGroups {
		return single("only %s %s at least %s (need %d to fan out)", plural.Count(len(v.Workers), "group", "groups"), plural.Word(len(v.Workers), "has", "have"), plural.Count(opts.MinGroupTasks, "unchecked task", "unchecked tasks"), opts.MinGroups)
	}
	v.FanOut = true
	v.Reasons = append(v.Reasons, fmt.Sprintf("groups %s are pairwise disjoint with no stated dependency, each with at least %s", strings.Join(v.Workers, ", "), plural.Count(opts.MinGroupTasks, "unchecked task", "unchecked tasks")))
	if len(v.Later) > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("groups %s are separable but under the size gate: done after fan-in", strings.Join(v.Later, ", ")))
	}
	return v
}

func isActive(gs []GroupArea, n string) bool {
	for _, g := range gs {
		if g.Number == n {
			return true
		}
	}
	return false
}

// groupKey names a group: its number, or its position ("#3") when the
// heading is not numbered.
func groupKey(g TaskGroup, i int) string {
	if g.Number != "" {
		return strings.TrimLeft(g.Number, "0")
	}
	return fmt.Sprintf("#%d", i+1)
}

// groupBodies returns the lines of each group's section (after its heading
// up to the next group heading).
func groupBodies(content string, tf TasksFile) [][]string {
	lines := strings.Split(content, "\n")
	out := make([][]string, len(tf.Groups))
	for i, g := range tf.Groups {
		end := len(lines)
		if i+1 < len(tf.Groups) {
			end = tf.Groups[i+1].Line - 1
		}
		for _, l := range lines[g.Line:end] {
			out[i] = append(out[i], strings.TrimRight(l, "\r"))
		}
	}
	return out
}

var (
	backtickSpan = lazyregexp.New("`([^`]+)`")
	bareToken    = lazyregexp.New(`[A-Za-z0-9_.*?{}\[\]/-]+`)
	fileExt      = lazyregexp.New(`^[^/]{2,}\.[A-Za-z][A-Za-z0-9]{0,5}$`)
)

// pathsIn returns the file paths and globs a line names: backticked spans
// that look like paths, and bare tokens with a '/' or a file extension.
func pathsIn(line string) []string {
	var out []string
	add := func(tok string) {
		if p, ok := asPath(tok); ok {
			out = append(out, p)
		}
	}
	rest := line
	for _, m := range backtickSpan.FindAllStringSubmatch(line, -1) {
		add(m[1])
		rest = strings.Replace(rest, m[0], " ", 1)
	}
	for _, tok := range bareToken.FindAllString(rest, -1) {
		add(tok)
	}
	return out
}

func asPath(tok string) (string, bool) {
	tok = strings.TrimSpace(tok)
	tok = strings.TrimRight(tok, ".,;:)")
	tok = strings.TrimLeft(tok, "(")
	if tok == "" || strings.ContainsAny(tok, " \t\"'<>|") || strings.Contains(tok, "://") {
		return "", false
	}
	tok = strings.TrimPrefix(tok, "./")
	if strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "../") {
		return "", false
	}
	base := path.Base(strings.TrimSuffix(tok, "/"))
	switch {
	case strings.Contains(tok, "/"):
		if !strings.ContainsAny(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ*") {
			return "", false // "1/2", dates
		}
	case strings.ContainsAny(tok, "*?"):
	case fileExt.MatchString(base):
	default:
		return "", false
	}
	if strings.HasSuffix(tok, "/") {
		tok += "**"
	}
	if !doublestar.ValidatePattern(tok) {
		return "", false
	}
	return tok, true
}

// areasOverlap reports the first pair of patterns of a and b that may
// name a common file. Globs are compared by their literal prefix, so a
// pair is called overlapping whenever that cannot be ruled out.
func areasOverlap(a, b []string) (string, string, bool) {
	for _, x := range a {
		for _, y := range b {
			if patternsIntersect(x, y) {
				return x, y, true
			}
		}
	}
	return "", "", false
}

func patternsIntersect(x, y string) bool {
	gx, gy := isGlob(x), isGlob(y)
	switch {
	case !gx && !gy:
		return x == y || isUnder(x, y) || isUnder(y, x)
	case !gx:
		return globCovers(y, x)
	case !gy:
		return globCovers(x, y)
	}
	px, py := literalPrefix(x), literalPrefix(y)
	return isUnder(px, py) || isUnder(py, px) || px == py
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// globCovers reports whether glob g may match literal path l or a file
// under it (l may name a directory).
// Patterns reach here validated (asPath keeps only those ValidatePattern accepts), so
// the unvalidated matcher, which has no error to drop, is the right one.
func globCovers(g, l string) bool {
	if doublestar.MatchUnvalidated(g, l) || doublestar.MatchUnvalidated(g, l+"/x") {
		return true
	}
	p := literalPrefix(g)
	return p == "" || isUnder(l, p) && strings.HasPrefix(g[len(p):], "/**")
}

// literalPrefix is the directory part of a glob before its first glob
// segment ("src/api/**" → "src/api", "*.md" → "").
func literalPrefix(g string) string {
	segs := strings.Split(g, "/")
	var lit []string
	for _, s := range segs {
		if isGlob(s) {
			break
		}
		lit = append(lit, s)
	}
	return strings.Join(lit, "/")
}

// isUnder reports whether p is q or inside directory q.
func isUnder(p, q string) bool {
	if q == "" {
		return true
	}
	return p == q || strings.HasPrefix(p, q+"/")
}

var (
	depPhrase = lazyregexp.New(`(?i)\b(depends?\s+on|dependent\s+on|blocked\s+by|requires?\b[^.;]*?\bfrom|needs?\b[^.;]*?\bfrom|after|follows|following|once|builds?\s+on|waits?\s+for|must\s+wait\s+for)\b`)
	groupRef  = lazyregexp.New(`(?i)^[\s:,]*(?:the\s+)?(?:(?:group|section|step|phase|part)\s*#?\s*(\d+)|#(\d+)\b|(\d+)\.(?:\d+[a-z]*)?(?:\s|$|[,;:)])|(\d+)\b)`)
)

// dependencies finds sentences of a group's body (its prose and task
// text) that state an ordering dependency on another group.
func dependencies(body []string, groups []GroupArea, self int) []Dependency {
	var out []Dependency
	seen := map[string]bool{}
	for _, line := range body {
		for _, sentence := range sentences(line) {
			for _, loc := range depPhrase.FindAllStringIndex(sentence, -1) {
				phrase := strings.ToLower(sentence[loc[0]:loc[1]])
				after := sentence[loc[1]:]
				on := ""
				if m := groupRef.FindStringSubmatch(after); m != nil {
					for _, g := range m[1:] {
						if g != "" {
							on = strings.TrimLeft(g, "0")
							break
						}
					}
				}
				if on == "" {
					on = titleRef(after, groups, self)
				}
				hard := strings.HasPrefix(phrase, "depend") || strings.HasPrefix(phrase, "blocked") || strings.HasPrefix(phrase, "must wait")
				switch {
				case on != "" && on != groups[self].Number:
					if !isActive(groups, on) {
						continue
					}
				case on == "" && hard:
					on = "*"
				default:
					continue
				}
				key := on + "\x00" + sentence
				if !seen[key] {
					seen[key] = true
					out = append(out, Dependency{On: on, Sentence: strings.TrimSpace(sentence)})
				}
			}
		}
	}
	return out
}

// titleRef returns the number of the group whose title the text after a
// dependency phrase names.
func titleRef(after string, groups []GroupArea, self int) string {
	low := strings.ToLower(after)
	for i, g := range groups {
		t := strings.ToLower(strings.TrimSpace(g.Title))
		if i == self || len(t) < 4 {
			continue
		}
		if idx := strings.Index(low, t); idx >= 0 && idx < 40 {
			return g.Number
		}
	}
	return ""
}

// sentences splits a line at sentence ends (". " followed by a capital or
// the end), keeping task ids like "1.2" intact.
func sentences(line string) []string {
	line = strings.TrimSpace(line)
	if t, ok := tasksmd.ParseTaskLine(line); ok {
		line = t.Text
	}
	var out []string
	start := 0
	for i := 0; i+1 < len(line); i++ {
		if (line[i] == '.' || line[i] == ';' || line[i] == '!' || line[i] == '?') && line[i+1] == ' ' && !(i > 0 && isDigit(line[i-1]) && line[i] == '.') {
			out = append(out, line[start:i+1])
			start = i + 2
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}
