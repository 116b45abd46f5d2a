// Package mdline recognises the two Markdown line shapes that the readers
// of tasks.md, OpenSpec specs and deltas, and kaisen plans all look for:
// fenced code block delimiters and list item markers. Each reader keeps its
// own dialect (OpenSpec's JavaScript patterns, CommonMark's indentation
// rules, a plan's blanks), given as a Fence or List value; the scanning is
// shared.
package mdline

import "unicode/utf8"

// Fence is a dialect of fenced code block delimiter: a run of three or more
// '`' or '~' after at most MaxIndent Indent characters.
type Fence struct {
	// Indent reports whether r may stand before the run.
	Indent func(r rune) bool
	// MaxIndent is how many Indent characters may stand before the run;
	// negative for any number.
	MaxIndent int
	// Closes reports whether rest, the text after a run, lets the run
	// close an open block.
	Closes func(rest string) bool
}

// Run reads the fence run that opens line after its indentation: the
// character, the run's length and the text after it. n < 3 means the line
// is no fence.
func (f Fence) Run(line string) (c byte, n int, rest string) {
	i, count := 0, 0
	for i < len(line) && (f.MaxIndent < 0 || count < f.MaxIndent) {
		r, size := utf8.DecodeRuneInString(line[i:])
		if !f.Indent(r) {
			break
		}
		i += size
		count++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, ""
	}
	c = line[i]
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return c, n, line[i+n:]
}

// Scanner follows fenced code blocks line by line.
type Scanner struct {
	f       Fence
	open    byte
	openLen int
}

// Scanner returns a Scanner for the dialect, outside any block.
func (f Fence) Scanner() *Scanner { return &Scanner{f: f} }

// In reports whether line belongs to a fenced code block (its opening and
// closing fence lines included) and moves past it. A block closes on a run
// of its opening character at least as long as the opener's that Closes
// accepts.
func (s *Scanner) In(line string) bool {
	c, n, rest := s.f.Run(line)
	if s.open == 0 {
		if n >= 3 {
			s.open, s.openLen = c, n
			return true
		}
		return false
	}
	if n >= 3 && c == s.open && n >= s.openLen && s.f.Closes(rest) {
		s.open = 0
	}
	return true
}

// Mask marks the lines that belong to a fenced code block, fence lines
// included.
func (f Fence) Mask(lines []string) []bool {
	mask := make([]bool, len(lines))
	s := f.Scanner()
	for i, line := range lines {
		mask[i] = s.In(line)
	}
	return mask
}

// List is a dialect of list item marker: Space characters, then a bullet
// ('-', '*' or '+') or an ordered item's digits and its delimiter ('.' or
// ')').
type List struct {
	// Space reports whether r is a blank before the marker.
	Space func(r rune) bool
	// MaxDigits is the most digits an ordered item's number may have;
	// negative for any number, 0 for bullets only.
	MaxDigits int
}

// Marker reads line's list marker: line[:indent] is the blank before it and
// line[after:] what follows it, so line[indent:after] is "-" or "12.". ok
// is false when line opens with no marker. What must follow the marker
// (a blank, a box) is the caller's to check.
func (l List) Marker(line string) (indent, after int, ok bool) {
	for indent < len(line) {
		r, size := utf8.DecodeRuneInString(line[indent:])
		if !l.Space(r) {
			break
		}
		indent += size
	}
	if indent >= len(line) {
		return 0, 0, false
	}
	switch line[indent] {
	case '-', '*', '+':
		return indent, indent + 1, true
	}
	j := indent
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	digits := j - indent
	if digits == 0 || (l.MaxDigits >= 0 && digits > l.MaxDigits) || j >= len(line) || (line[j] != '.' && line[j] != ')') {
		return 0, 0, false
	}
	return indent, j + 1, true
}
