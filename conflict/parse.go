package conflict

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MinMarkerLen is the length of the markers jj and git write by default.
// jj writes longer ones (the longest marker-like line of the file plus
// four) when the file's own lines look like markers.
const MinMarkerLen = 7

// Parse reads data as a file that may hold conflict markers in any of the
// styles jj and git write. It never fails and never panics: what it cannot
// read as a conflict stays plain text and is listed in File.Problems.
func Parse(data []byte) *File { return ParseString(string(data)) }

// ParseString is Parse for a string; the File's texts share its memory.
func ParseString(s string) *File {
	f := &File{}
	if strings.IndexByte(s, 0) >= 0 {
		f.Binary = true
		f.Problems = append(f.Problems, Problem{Kind: ProblemBinary,
			Message: "binary file (it contains a NUL byte): left untouched; resolve it with `jj resolve --tool` or by restoring one side"})
		if s != "" {
			f.Segments = []Segment{{Text: s}}
		}
		return f
	}
	if !utf8.ValidString(s) {
		f.InvalidUTF8 = true
		off := firstInvalidUTF8(s)
		f.Problems = append(f.Problems, Problem{Line: 1 + strings.Count(s[:off], "\n"), Kind: ProblemInvalidUTF8,
			Message: fmt.Sprintf("invalid UTF-8 at byte %d: the file is reported but never rewritten; fix its encoding and re-run", off)})
	}
	// jj makes its markers longer than any marker-like line of the file,
	// and a file's real markers all have one length, so the longest
	// opening markers that form a conflict are the real ones; shorter
	// marker-like lines are content.
	lengths := openLengths(s)
	if len(lengths) == 0 {
		p := parser{s: s, f: f}
		p.run()
		return f
	}
	parses := map[int]*File{}
	parse := func(n int) *File {
		if g, ok := parses[n]; ok {
			return g
		}
		g := &File{InvalidUTF8: f.InvalidUTF8, Problems: append([]Problem(nil), f.Problems...)}
		p := parser{s: s, f: g, n: n}
		p.run()
		parses[n] = g
		return g
	}
	for i, n := range lengths {
		g := parse(n)
		if len(g.Hunks) == 0 || insideGitBase(g, lengths[i+1:], parse) {
			continue
		}
		return g
	}
	return parse(lengths[0])
}

// insideGitBase reports whether a hunk of g lies in the base of a diff3
// hunk with shorter markers: git's recursive merge writes the conflicts
// of its virtual merge base that way (markers two longer, inside the
// "|||||||" section), and then the shorter markers are the real ones.
func insideGitBase(g *File, shorter []int, parse func(int) *File) bool {
	for _, m := range shorter {
		for _, outer := range parse(m).Hunks {
			from, to, ok := outer.baseLines()
			if !ok {
				continue
			}
			for _, h := range g.Hunks {
				if h.StartLine >= from && h.EndLine <= to {
					return true
				}
			}
		}
	}
	return false
}

// baseLines returns the lines of a git-style hunk's base section.
func (h *Hunk) baseLines() (from, to int, ok bool) {
	if h.Style != StyleGit || len(h.blocks) != 3 || h.blocks[1].kind != blockGitBase {
		return 0, 0, false
	}
	from = h.StartLine + 1 + strings.Count(h.blocks[0].body, "\n") + 1
	return from, from + strings.Count(h.blocks[1].body, "\n") - 1, true
}

// maxLengthTries bounds how many marker lengths ParseString tries.
const maxLengthTries = 4

// openLengths returns the distinct lengths (at least MinMarkerLen) of the
// lines that open with '<' markers, longest first.
func openLengths(s string) []int {
	var out []int
	add := func(pos int) {
		n := markerLen(s[pos:lineEnd(s, pos)])
		if n < MinMarkerLen {
			return
		}
		for i, m := range out {
			if m == n {
				return
			}
			if n > m {
				out = append(out[:i], append([]int{n}, out[i:]...)...)
				return
			}
		}
		out = append(out, n)
	}
	if strings.HasPrefix(s, "<<<<<<<") {
		add(0)
	}
	for pos := 0; ; {
		i := strings.Index(s[pos:], "\n<<<<<<<")
		if i < 0 {
			break
		}
		pos += i + 1
		add(pos)
	}
	if len(out) > maxLengthTries {
		out = out[:maxLengthTries]
	}
	return out
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}

type parser struct {
	s string
	f *File
	n int // the length of the file's markers; 0 when it opens no conflict
}

// isMarker reports whether a marker of length m counts at the file level.
func (p *parser) isMarker(m int) bool {
	if p.n == 0 {
		return m >= MinMarkerLen
	}
	return m == p.n
}

// markerChars are the bytes a marker line repeats.
var markerChars = [256]bool{'<': true, '>': true, '+': true, '-': true, '%': true, '\\': true, '|': true, '=': true}

// markerLen returns the length of the marker that opens line (a run of
// one marker byte followed by whitespace or the end of the line), or 0.
func markerLen(line string) int {
	if line == "" || !markerChars[line[0]] {
		return 0
	}
	c := line[0]
	n := 1
	for n < len(line) && line[n] == c {
		n++
	}
	if n < len(line) {
		switch line[n] {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return 0
		}
	}
	return n
}

// marker returns the marker byte of line when it is a marker of exactly
// length n.
func marker(line string, n int) (byte, bool) {
	if len(line) < n || !markerChars[line[0]] {
		return 0, false
	}
	if markerLen(line) != n {
		return 0, false
	}
	return line[0], true
}

// lineEnd returns the index just past the line that starts at pos.
func lineEnd(s string, pos int) int {
	if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(s)
}

func (p *parser) run() {
	s := p.s
	pos, line, textStart := 0, 1, 0
	for pos < len(s) {
		end := lineEnd(s, pos)
		switch c := s[pos]; c {
		case '<', '=', '>', '|':
			n := markerLen(s[pos:end])
			if !p.isMarker(n) {
				break
			}
			if c != '<' {
				p.problem(Problem{Line: line, Kind: ProblemStray,
					Message: fmt.Sprintf("%q marker outside any conflict: left as text", strings.Repeat(string(c), n))})
				break
			}
			h, next, nextLine, prob := p.hunk(pos, end, line, n)
			if h != nil {
				p.text(textStart, pos)
				h.Index = len(p.f.Hunks) + 1
				p.f.Hunks = append(p.f.Hunks, h)
				p.f.Segments = append(p.f.Segments, Segment{Hunk: h})
				pos, line, textStart = next, nextLine, next
				continue
			}
			p.problem(prob)
			if next > end {
				pos, line = next, nextLine
				continue
			}
		}
		pos = end
		line++
	}
	p.text(textStart, len(s))
}

func (p *parser) text(from, to int) {
	if to > from {
		p.f.Segments = append(p.f.Segments, Segment{Text: p.s[from:to]})
	}
}

func (p *parser) problem(q Problem) { p.f.Problems = append(p.f.Problems, q) }

// hunk reads the conflict whose opening marker (length n) spans
// [start, openEnd) at line. It returns the hunk, or nil and the problem;
// next and nextLine are where scanning resumes.
func (p *parser) hunk(start, openEnd, line, n int) (h *Hunk, next, nextLine int, prob Problem) {
	s := p.s
	pos, ln := openEnd, line+1
	for pos < len(s) {
		end := lineEnd(s, pos)
		if c := s[pos]; c == '<' || c == '>' {
			if _, ok := marker(s[pos:end], n); ok {
				if c == '<' {
					return nil, pos, ln, Problem{Line: line, Kind: ProblemUnterminated,
						Message: fmt.Sprintf("conflict opened here is not closed before another opens at line %d: left as text", ln)}
				}
				h, err := build(s[start:openEnd], s[openEnd:pos], s[pos:end], n, line)
				if err != nil {
					return nil, end, ln + 1, Problem{Line: line, Kind: ProblemMalformed,
						Message: fmt.Sprintf("conflict at lines %d-%d: %v: left as text", line, ln, err)}
				}
				h.StartLine, h.EndLine = line, ln
				return h, end, ln + 1, Problem{}
			}
		}
		pos = end
		ln++
	}
	return nil, len(s), ln, Problem{Line: line, Kind: ProblemUnterminated,
		Message: fmt.Sprintf("conflict opened here has no closing %q marker: left as text", strings.Repeat(">", n))}
}

// build reads a hunk from its opening marker line, body and closing
// marker line.
func build(open, body, close string, n, line int) (*Hunk, error) {
	h := &Hunk{MarkerLen: n, open: open, close: close, eol: eolOf(open)}
	var err error
	first := body[:lineEnd(body, 0)]
	if c, ok := marker(first, n); ok && (c == '+' || c == '-' || c == '%') {
		err = h.buildJJ(body, line+1)
	} else {
		err = h.buildGit(body, line+1)
	}
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(close, "\n") {
		// The file ends at the closing marker: jj then ends every term
		// with one extra line end as a separator, which is not content.
		for i := range h.Sides {
			h.Sides[i].Text = trimSeparator(h.Sides[i].Text, h.eol)
		}
		for i := range h.Bases {
			h.Bases[i].Text = trimSeparator(h.Bases[i].Text, h.eol)
		}
	}
	return h, nil
}

func trimSeparator(t, eol string) string {
	if strings.HasSuffix(t, "\n") {
		t = t[:len(t)-1]
		if eol == "\r\n" && strings.HasSuffix(t, "\r") {
			t = t[:len(t)-1]
		}
	}
	return t
}

func eolOf(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	}
	return ""
}

// markerText is what follows the marker on its line, trimmed.
func markerText(line string, n int) string {
	return strings.TrimSpace(line[n:])
}

func (h *Hunk) buildJJ(body string, line int) error {
	n := h.MarkerLen
	var bodyStart int
	closeBlock := func(end int) {
		if k := len(h.blocks); k > 0 {
			h.blocks[k-1].body = body[bodyStart:end]
		}
	}
	for pos := 0; pos < len(body); line++ {
		end := lineEnd(body, pos)
		l := body[pos:end]
		if c, ok := marker(l, n); ok {
			switch c {
			case '+', '-', '%':
				closeBlock(pos)
				kind := blockAdd
				switch c {
				case '-':
					kind = blockRemove
				case '%':
					kind = blockDiff
				}
				h.blocks = append(h.blocks, block{kind: kind, head: l})
				bodyStart = end
				pos = end
				continue
			case '\\':
				b := &h.blocks[len(h.blocks)-1]
				if b.kind != blockDiff || b.note != "" || bodyStart != pos {
					return fmt.Errorf(`line %d: a %q line belongs right after a %q line`, line, strings.Repeat(`\`, n), strings.Repeat("%", n))
				}
				b.note = l
				bodyStart = end
				pos = end
				continue
			default:
				return fmt.Errorf("line %d: a %q marker inside a jj-style conflict", line, strings.Repeat(string(c), n))
			}
		}
		if h.blocks[len(h.blocks)-1].kind == blockDiff {
			switch l[0] {
			case '+', '-', ' ':
			case '\r', '\n':
				if l != "\n" && l != "\r\n" {
					return fmt.Errorf("line %d in a diff section does not start with '+', '-' or ' '", line)
				}
			default:
				return fmt.Errorf("line %d in a diff section does not start with '+', '-' or ' '", line)
			}
		}
		pos = end
	}
	closeBlock(len(body))

	diffs := false
	for _, b := range h.blocks {
		text := markerText(b.head, n)
		switch b.kind {
		case blockAdd:
			h.Sides = append(h.Sides, Term{Label: ParseLabel(text), Text: b.body})
		case blockRemove:
			h.Bases = append(h.Bases, Term{Label: ParseLabel(text), Text: b.body})
		case blockDiff:
			diffs = true
			from, to := diffLabels(text, b.note, n)
			base, side := splitDiff(b.body)
			h.Bases = append(h.Bases, Term{Label: ParseLabel(from), Text: base})
			h.Sides = append(h.Sides, Term{Label: ParseLabel(to), Text: side})
		}
	}
	if len(h.Sides) < 2 || len(h.Sides) != len(h.Bases)+1 {
		return fmt.Errorf("%d sides and %d bases (a jj conflict has two or more sides and one base fewer)", len(h.Sides), len(h.Bases))
	}
	h.Style = StyleSnapshot
	if diffs {
		h.Style = StyleDiff
	}
	h.Info = markerText(h.open, n)
	return nil
}

// diffLabels reads the labels of a diff section: "diff from: A" with
// "       to: B" (jj 0.3x and later) or "diff from A to B" (older jj).
func diffLabels(head, note string, n int) (from, to string) {
	if note != "" {
		to = strings.TrimSpace(markerText(note, n))
		to = strings.TrimSpace(strings.TrimPrefix(to, "to:"))
	}
	switch {
	case strings.HasPrefix(head, "diff from:"):
		from = strings.TrimSpace(strings.TrimPrefix(head, "diff from:"))
	case strings.HasPrefix(head, "diff from ") || strings.HasPrefix(head, "Changes from "):
		rest := head[strings.Index(head, "from ")+len("from "):]
		if i := strings.LastIndex(rest, " to "); i >= 0 && note == "" {
			from, to = rest[:i], rest[i+len(" to "):]
		} else {
			from = rest
		}
	default:
		from = head
	}
	return from, to
}

// splitDiff splits a diff section's lines into its base and side texts.
func splitDiff(body string) (base, side string) {
	var b, s strings.Builder
	for pos := 0; pos < len(body); {
		end := lineEnd(body, pos)
		l := body[pos:end]
		switch l[0] {
		case '-':
			b.WriteString(l[1:])
		case '+':
			s.WriteString(l[1:])
		case ' ':
			b.WriteString(l[1:])
			s.WriteString(l[1:])
		default: // an empty context line whose space an editor stripped
			b.WriteString(l)
			s.WriteString(l)
		}
		pos = end
	}
	return b.String(), s.String()
}

func (h *Hunk) buildGit(body string, line int) error {
	n := h.MarkerLen
	h.blocks = append(h.blocks, block{kind: blockGitLeft})
	bodyStart := 0
	for pos := 0; pos < len(body); line++ {
		end := lineEnd(body, pos)
		l := body[pos:end]
		if c, ok := marker(l, n); ok && (c == '|' || c == '=') {
			cur := h.blocks[len(h.blocks)-1].kind
			if (c == '|' && cur != blockGitLeft) || (c == '=' && cur == blockGitRight) {
				return fmt.Errorf("line %d: a second %q marker", line, strings.Repeat(string(c), n))
			}
			h.blocks[len(h.blocks)-1].body = body[bodyStart:pos]
			kind := blockGitBase
			if c == '=' {
				kind = blockGitRight
			}
			h.blocks = append(h.blocks, block{kind: kind, head: l})
			bodyStart = end
		}
		pos = end
	}
	h.blocks[len(h.blocks)-1].body = body[bodyStart:]
	if h.blocks[len(h.blocks)-1].kind != blockGitRight {
		return fmt.Errorf("no %q separator", strings.Repeat("=", n))
	}
	for _, b := range h.blocks {
		switch b.kind {
		case blockGitLeft:
			h.Sides = append(h.Sides, Term{Label: ParseLabel(markerText(h.open, n)), Text: b.body})
		case blockGitBase:
			h.Bases = append(h.Bases, Term{Label: ParseLabel(markerText(b.head, n)), Text: b.body})
		case blockGitRight:
			h.Sides = append(h.Sides, Term{Label: ParseLabel(markerText(h.close, n)), Text: b.body})
		}
	}
	h.Style = StyleGit
	return nil
}
