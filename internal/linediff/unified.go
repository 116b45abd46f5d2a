package linediff

import (
	"strconv"
	"strings"
)

// Context is the number of unchanged lines Unified shows around a change.
const Context = 3

// Lines splits s into lines that keep their "\n"; a last line without
// one is a line too.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of an edit script: kind is ' ', '-' or '+', a and b
// the number of lines of old and new before it.
type op struct {
	kind byte
	a, b int
}

// script returns the edit script of a matching: in each gap between
// matched lines, the deletions, then the insertions.
func script(na, nb int, ms []Pair) []op {
	out := make([]op, 0, na+nb-len(ms))
	i, j := 0, 0
	for _, m := range append(ms, Pair{na, nb}) {
		for ; i < m.A; i++ {
			out = append(out, op{'-', i, j})
		}
		for ; j < m.B; j++ {
			out = append(out, op{'+', i, j})
		}
		if m.A < na {
			out = append(out, op{' ', i, j})
			i, j = i+1, j+1
		}
	}
	return out
}

// Unified returns the unified diff from old to new: a "--- from" and
// "+++ to" header, then hunks with Context unchanged lines around each
// change (hunks closer than 2*Context lines are one), a last line
// without a newline followed by "\ No newline at end of file". Equal
// texts have the header and no hunk.
func Unified(from, to, old, new string) string {
	a, b := Lines(old), Lines(new)
	ops := script(len(a), len(b), Match(a, b))
	var out strings.Builder
	out.WriteString("--- " + from + "\n+++ " + to + "\n")
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start, end := max(i-Context, 0), i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*Context {
				end = min(end+Context, len(ops))
				break
			}
			end = run
		}
		h := ops[start:end]
		na, nb := 0, 0
		for _, o := range h {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		out.WriteString("@@ -" + hunkRange(h[0].a, na) + " +" + hunkRange(h[0].b, nb) + " @@\n")
		for _, o := range h {
			var text string
			if o.kind == '+' {
				text = b[o.b]
			} else {
				text = a[o.a]
			}
			out.WriteByte(o.kind)
			out.WriteString(text)
			if !strings.HasSuffix(text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange writes a hunk's range of one side: its first line (1-based;
// for no lines, the line before) and its length when not 1.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}
