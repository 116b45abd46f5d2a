package conflict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// StrategyKind names a way to resolve a hunk.
type StrategyKind string

// The strategies.
const (
	Ours     StrategyKind = "ours"   // the first of two sides
	Theirs   StrategyKind = "theirs" // the second of two sides
	SideN    StrategyKind = "side"   // side N (1-based) of any number
	TakeBase StrategyKind = "base"   // the base (all bases, when they agree)
	UnionAll StrategyKind = "union"  // every side's lines, common ones once
	Tasks    StrategyKind = "tasks"  // tasks.md tick reconciliation
)

// Strategy is a parsed --strategy value.
type Strategy struct {
	Kind StrategyKind
	N    int // for SideN
}

func (s Strategy) String() string {
	if s.Kind == SideN {
		return "side=" + strconv.Itoa(s.N)
	}
	return string(s.Kind)
}

// ParseStrategy reads "ours", "theirs", "side=N", "base", "union" or
// "tasks".
func ParseStrategy(v string) (Strategy, error) {
	switch k := StrategyKind(v); k {
	case Ours, Theirs, TakeBase, UnionAll, Tasks:
		return Strategy{Kind: k}, nil
	}
	if rest, ok := strings.CutPrefix(v, "side="); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return Strategy{}, fmt.Errorf("strategy %q: N in side=N is a side number from 1", v)
		}
		return Strategy{Kind: SideN, N: n}, nil
	}
	return Strategy{}, fmt.Errorf("unknown strategy %q: choose tasks, ours, theirs, side=N, base or union", v)
}

// ResolveHunk returns the text that replaces h under s, or ok false and
// why the strategy cannot be applied safely. Tasks works on whole files
// (ResolveFile); for a lone hunk it reconciles the hunk's own lines.
func ResolveHunk(h *Hunk, s Strategy) (text string, ok bool, reason string) {
	switch s.Kind {
	case Ours, Theirs:
		if len(h.Sides) != 2 {
			return "", false, fmt.Sprintf("it has %d sides; %s needs exactly two: use side=N", len(h.Sides), s.Kind)
		}
		if s.Kind == Ours {
			return h.Sides[0].Text, true, ""
		}
		return h.Sides[1].Text, true, ""
	case SideN:
		if s.N > len(h.Sides) {
			return "", false, fmt.Sprintf("it has %d sides, no side %d", len(h.Sides), s.N)
		}
		return h.Sides[s.N-1].Text, true, ""
	case TakeBase:
		if len(h.Bases) == 0 {
			return "", false, "no base was recorded (git's default conflict style): use ours, theirs, side=N or union"
		}
		for _, b := range h.Bases[1:] {
			if b.Text != h.Bases[0].Text {
				return "", false, fmt.Sprintf("its %d bases differ: use side=N or union", len(h.Bases))
			}
		}
		return h.Bases[0].Text, true, ""
	case UnionAll:
		texts := make([]string, len(h.Sides))
		for i, t := range h.Sides {
			texts[i] = t.Text
		}
		return Union(texts, h.eolOr()), true, ""
	case Tasks:
		if len(h.Sides) == 2 && len(h.Bases) == 0 {
			return MergeTasks2(h.Sides[0].Text, h.Sides[1].Text)
		}
		if len(h.Sides) != 2 || len(h.Bases) != 1 {
			return "", false, fmt.Sprintf("tasks reconciles two sides and one base; it has %d sides and %d bases", len(h.Sides), len(h.Bases))
		}
		r := MergeTasks(h.Bases[0].Text, h.Sides[0].Text, h.Sides[1].Text, TasksOptions{})
		if len(r.Conflicts) > 0 {
			return "", false, r.Conflicts[0].Reason
		}
		return r.Text, true, ""
	}
	return "", false, fmt.Sprintf("unknown strategy %q", s)
}

func (h *Hunk) eolOr() string {
	if h.eol == "\r\n" {
		return "\r\n"
	}
	return "\n"
}

// HunkReport says what became of one hunk.
type HunkReport struct {
	Index     int    `json:"index"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Sides     int    `json:"sides"`
	Reason    string `json:"reason,omitempty"` // why it was left
}

// Resolution is the outcome of ResolveFile.
type Resolution struct {
	Content  []byte       `json:"-"`
	Changed  bool         `json:"changed"`
	Before   int          `json:"hunks_before"`
	Resolved []HunkReport `json:"resolved"`
	// Left are the hunks still in Content, with the line numbers they
	// have there and why each was left.
	Left []HunkReport `json:"left"`
	// Ticks are the tasks the tasks strategy ticked from either side.
	Ticks []string `json:"ticks,omitempty"`
	// Problems are what the parser could not read (left untouched).
	Problems []Problem `json:"problems,omitempty"`
}

// ResolveFile applies s to every hunk of f. Hunks s cannot resolve safely
// keep their markers and are listed in Left with the reason; a file that
// is binary, not UTF-8 or has malformed markers is left untouched.
func ResolveFile(f *File, s Strategy) Resolution { return ResolveHunks(f, s, nil) }

// ResolveHunks is ResolveFile for the hunks numbered in only (1-based, in
// file order; empty means all): the others stay as they are. The tasks
// strategy then works hunk by hunk instead of on the whole file.
func ResolveHunks(f *File, s Strategy, only []int) Resolution {
	res := Resolution{Before: len(f.Hunks), Problems: f.Problems}
	if !f.Resolvable() {
		reason := "the file was left untouched"
		for _, p := range f.Problems {
			if p.Kind != ProblemStray {
				reason = "the file was left untouched: " + p.String()
				break
			}
		}
		for _, h := range f.Hunks {
			res.Left = append(res.Left, report(h, reason))
		}
		res.Content = f.Render()
		return res
	}
	if s.Kind == Tasks && len(only) == 0 {
		if r, ok := resolveTasksFile(f); ok {
			return r
		}
	}
	var b strings.Builder
	line := 1
	for _, seg := range f.Segments {
		if seg.Hunk == nil {
			b.WriteString(seg.Text)
			line += strings.Count(seg.Text, "\n")
			continue
		}
		h := seg.Hunk
		text, ok, reason := ResolveHunk(h, s)
		if len(only) > 0 && !slices.Contains(only, h.Index) {
			ok, reason = false, "not selected"
		}
		if ok {
			res.Resolved = append(res.Resolved, report(h, ""))
			b.WriteString(text)
			line += strings.Count(text, "\n")
			continue
		}
		raw := h.Raw()
		r := report(h, reason)
		// Numbered and placed as in the new content.
		r.Index = len(res.Left) + 1
		r.StartLine, r.EndLine = line, line+strings.Count(raw, "\n")
		if strings.HasSuffix(raw, "\n") {
			r.EndLine--
		}
		res.Left = append(res.Left, r)
		b.WriteString(raw)
		line += strings.Count(raw, "\n")
	}
	res.Content = []byte(b.String())
	res.Changed = len(res.Resolved) > 0
	return res
}

func report(h *Hunk, reason string) HunkReport {
	return HunkReport{Index: h.Index, StartLine: h.StartLine, EndLine: h.EndLine, Sides: len(h.Sides), Reason: reason}
}

// Versions rebuilds the whole versions a conflicted file was made from:
// its bases and sides, each the file's plain text with that term in every
// hunk. ok is false when the hunks disagree on the number of sides or
// bases.
func (f *File) Versions() (bases, sides []string, ok bool) {
	if len(f.Hunks) == 0 {
		return nil, nil, false
	}
	nb, ns := len(f.Hunks[0].Bases), len(f.Hunks[0].Sides)
	for _, h := range f.Hunks {
		if len(h.Bases) != nb || len(h.Sides) != ns {
			return nil, nil, false
		}
	}
	bb := make([]strings.Builder, nb)
	sb := make([]strings.Builder, ns)
	for _, seg := range f.Segments {
		for i := range bb {
			if seg.Hunk != nil {
				bb[i].WriteString(seg.Hunk.Bases[i].Text)
			} else {
				bb[i].WriteString(seg.Text)
			}
		}
		for i := range sb {
			if seg.Hunk != nil {
				sb[i].WriteString(seg.Hunk.Sides[i].Text)
			} else {
				sb[i].WriteString(seg.Text)
			}
		}
	}
	for i := range bb {
		bases = append(bases, bb[i].String())
	}
	for i := range sb {
		sides = append(sides, sb[i].String())
	}
	return bases, sides, true
}

// resolveTasksFile reconciles a conflicted tasks file as a whole: it
// rebuilds base, left and right and merges them with MergeTasks, writing
// what stays in conflict in the style and labels of the file's first hunk.
func resolveTasksFile(f *File) (Resolution, bool) {
	bases, sides, ok := f.Versions()
	if !ok || len(sides) != 2 || len(bases) != 1 {
		return Resolution{}, false
	}
	h0 := f.Hunks[0]
	opts := TasksOptions{
		Style:     h0.Style,
		MarkerLen: h0.MarkerLen,
		Labels:    Labels{Base: h0.Bases[0].Label.Text, Left: h0.Sides[0].Label.Text, Right: h0.Sides[1].Label.Text},
	}
	r := MergeTasks(bases[0], sides[0], sides[1], opts)
	out := ParseString(r.Text)
	if len(out.Hunks) >= len(f.Hunks) && ConflictedLines(out) >= ConflictedLines(f) {
		// Nothing got smaller: keep the file as it is, with the reasons.
		res := Resolution{Content: f.Render(), Before: len(f.Hunks), Problems: f.Problems}
		for i, h := range f.Hunks {
			reason := "the task lines changed on both sides"
			if i < len(r.Conflicts) {
				reason = r.Conflicts[i].Reason
			}
			res.Left = append(res.Left, report(h, reason))
		}
		return res, true
	}
	res := Resolution{Content: []byte(r.Text), Before: len(f.Hunks), Problems: f.Problems, Ticks: r.Ticks}
	for i, h := range out.Hunks {
		reason := "the task lines changed on both sides"
		if i < len(r.Conflicts) {
			reason = r.Conflicts[i].Reason
		}
		res.Left = append(res.Left, report(h, reason))
	}
	if len(res.Left) == 0 {
		// Otherwise the merge has re-cut the regions, and Left says what
		// remains with its new line numbers.
		for _, h := range f.Hunks {
			res.Resolved = append(res.Resolved, report(h, ""))
		}
	}
	res.Changed = true
	return res, true
}

// ConflictedLines counts the lines of every side and base of f's hunks:
// how much is still in conflict.
func ConflictedLines(f *File) int {
	n := 0
	for _, h := range f.Hunks {
		for _, t := range h.Sides {
			n += len(SplitLines(t.Text))
		}
		for _, t := range h.Bases {
			n += len(SplitLines(t.Text))
		}
	}
	return n
}
