package plan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// nearTaskHeadings lists the headings outside fences that look like task
// headings but are not read as one ("### Taks 1: alpha", "# Task 1: x",
// "## Task #2"): such a heading is folded silently into the preamble or
// the task before it, so its task runs with another's (issue 27).
func nearTaskHeadings(lines []string, inFence []bool) []PlanLine {
	var out []PlanLine
	for i, l := range lines {
		if inFence[i] || !strings.HasPrefix(l, "#") {
			continue
		}
		if _, ok := parseTaskHeading(l); ok {
			continue
		}
		if looksLikeTaskHeading(l) {
			out = append(out, PlanLine{Line: i + 1, Text: l})
		}
	}
	return out
}

// looksLikeTaskHeading reports whether heading line l starts, after its
// "#"s, with a word one edit from "task" (a typo, a transposition, a
// plural) followed by a number, "#" or ":".
func looksLikeTaskHeading(l string) bool {
	level := 0
	for level < len(l) && l[level] == '#' {
		level++
	}
	if level > 6 {
		return false
	}
	rest := strings.TrimLeft(l[level:], " \t*_")
	k := 0
	for k < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[k:])
		if !unicode.IsLetter(r) {
			break
		}
		k += size
	}
	word, after := strings.ToLower(rest[:k]), strings.TrimLeft(rest[k:], " \t*_")
	if word == "" || after == "" || !(after[0] >= '0' && after[0] <= '9' || after[0] == '#' || after[0] == ':') {
		return false
	}
	return oneEditFrom(word, "task")
}

// oneEditFrom reports whether a is b or one insertion, deletion,
// substitution or transposition of adjacent letters away from it.
func oneEditFrom(a, b string) bool {
	if a == b {
		return true
	}
	switch {
	case len(a) == len(b):
		diff := []int{}
		for i := range len(a) {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		return len(diff) == 1 || len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	case len(a) == len(b)+1:
		return dropsOne(a, b)
	case len(b) == len(a)+1:
		return dropsOne(b, a)
	}
	return false
}

// dropsOne reports whether removing one byte of long gives short.
func dropsOne(long, short string) bool {
	i := 0
	for i < len(short) && long[i] == short[i] {
		i++
	}
	return long[i+1:] == short[i:]
}
