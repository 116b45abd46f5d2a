package conflict

import (
	"strings"

	"github.com/specstack/specstack/internal/linediff"
)

// Render writes the file back: Render(Parse(x)) == x for every x.
func (f *File) Render() []byte {
	var b strings.Builder
	f.renderTo(&b)
	return []byte(b.String())
}

func (f *File) renderTo(b *strings.Builder) {
	for _, s := range f.Segments {
		if s.Hunk != nil {
			b.WriteString(s.Hunk.Raw())
		} else {
			b.WriteString(s.Text)
		}
	}
}

// Raw returns the hunk exactly as it was in the file, markers included.
func (h *Hunk) Raw() string {
	var b strings.Builder
	b.WriteString(h.open)
	for _, bl := range h.blocks {
		b.WriteString(bl.head)
		b.WriteString(bl.note)
		b.WriteString(bl.body)
	}
	b.WriteString(h.close)
	return b.String()
}

// MarkerLenFor returns the marker length jj would choose for a conflict
// between texts: four more than the longest marker-like line in any of
// them, and at least MinMarkerLen. jj only reads back markers at least
// that long, so conflicts written for jj must use it.
func MarkerLenFor(texts ...string) int {
	longest := 0
	for _, t := range texts {
		for pos := 0; pos < len(t); {
			end := lineEnd(t, pos)
			if n := markerLen(t[pos:end]); n > longest {
				longest = n
			}
			pos = end
		}
	}
	return max(longest+4, MinMarkerLen)
}

// Materialize writes one conflict hunk for sides and bases in style with
// markers of length n, as jj would: info labels jj-style hunks ("conflict
// 1 of 1"); eol is the line end ("\n" or "\r\n"). When a term does not end
// with a line end, every term gets eol as a separator and the closing
// marker has none, so the hunk must end the file. Git style needs two
// sides and at most one base; other cases are written in snapshot style.
func Materialize(sides, bases []Term, style Style, n int, info, eol string) string {
	if eol == "" {
		eol = "\n"
	}
	noEOL := false
	for _, t := range append(append([]Term{}, sides...), bases...) {
		if t.Text != "" && !strings.HasSuffix(t.Text, "\n") {
			noEOL = true
		}
	}
	term := func(t Term) (label, text string) {
		label, text = t.Label.Text, t.Text
		if noEOL {
			if text != "" && !strings.HasSuffix(text, "\n") && !strings.HasSuffix(label, noEOLNote) {
				label = strings.TrimSpace(label + " " + noEOLNote)
			}
			text += eol
		}
		return label, text
	}
	var b strings.Builder
	mark := func(c byte, label string) {
		b.WriteString(strings.Repeat(string(c), n))
		if label != "" {
			b.WriteByte(' ')
			b.WriteString(label)
		}
	}
	if style == StyleGit && len(sides) == 2 && len(bases) <= 1 {
		l, t := term(sides[0])
		mark('<', l)
		b.WriteString(eol)
		b.WriteString(t)
		if len(bases) == 1 {
			l, t := term(bases[0])
			mark('|', l)
			b.WriteString(eol)
			b.WriteString(t)
		}
		mark('=', "")
		b.WriteString(eol)
		l, t = term(sides[1])
		b.WriteString(t)
		mark('>', l)
	} else {
		mark('<', info)
		b.WriteString(eol)
		if style == StyleDiff && len(bases) == len(sides)-1 {
			for i, base := range bases {
				bl, bt := term(base)
				sl, st := term(sides[i])
				mark('%', "diff from: "+bl)
				b.WriteString(eol)
				mark('\\', "       to: "+sl)
				b.WriteString(eol)
				writeDiff(&b, SplitLines(bt), SplitLines(st))
			}
			l, t := term(sides[len(sides)-1])
			mark('+', l)
			b.WriteString(eol)
			b.WriteString(t)
		} else {
			for i, side := range sides {
				if i > 0 && i-1 < len(bases) {
					l, t := term(bases[i-1])
					mark('-', l)
					b.WriteString(eol)
					b.WriteString(t)
				}
				l, t := term(side)
				mark('+', l)
				b.WriteString(eol)
				b.WriteString(t)
			}
		}
		end := "ends"
		if info != "" {
			end = info + " ends"
		}
		mark('>', end)
	}
	if !noEOL {
		b.WriteString(eol)
	}
	return b.String()
}

// writeDiff writes the lines of a diff from a to b with ' ', '-' and '+'
// prefixes: each changed run as its removals, then its additions.
func writeDiff(b *strings.Builder, a, c []string) {
	ms := linediff.Match(a, c)
	i, j := 0, 0
	flush := func(ai, cj int) {
		for ; i < ai; i++ {
			b.WriteByte('-')
			b.WriteString(a[i])
		}
		for ; j < cj; j++ {
			b.WriteByte('+')
			b.WriteString(c[j])
		}
	}
	for _, m := range ms {
		flush(m.A, m.B)
		b.WriteByte(' ')
		b.WriteString(a[i])
		i++
		j++
	}
	flush(len(a), len(c))
}
