package conflict

import (
	"strings"

	"github.com/specstack/specstack/internal/linediff"
)

// Union returns the lines of every text in order, lines common to all of
// them kept once: a common supersequence, built by merging each text in
// turn into the result along a longest common subsequence. Every text is
// a subsequence of the result, so no line of any side is lost. A last
// line without a line end gets eol when other lines follow it.
func Union(texts []string, eol string) string {
	if eol == "" {
		eol = "\n"
	}
	var acc []string
	for i, t := range texts {
		lines := SplitLines(t)
		if i == 0 {
			acc = lines
			continue
		}
		acc = unionLines(acc, lines)
	}
	var b strings.Builder
	for i, l := range acc {
		b.WriteString(l)
		if i < len(acc)-1 && !strings.HasSuffix(l, "\n") {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// unionLines merges b into a along their common subsequence: in each gap,
// a's lines come first, then b's.
func unionLines(a, b []string) []string {
	ms := linediff.Match(a, b)
	out := make([]string, 0, len(a)+len(b)-len(ms))
	i, j := 0, 0
	for _, m := range append(ms, linediff.Pair{A: len(a), B: len(b)}) {
		out = append(out, a[i:m.A]...)
		out = append(out, b[j:m.B]...)
		if m.A < len(a) {
			out = append(out, a[m.A])
		}
		i, j = m.A+1, m.B+1
	}
	return out
}
