package manpage

import (
	"strings"
)

// render turns the pages' plain-text markup into roff:
//
//	# TITLE          a section (.SH)
//	## Title         a subsection (.SS)
//	+ term           a tagged paragraph (.TP): the term, then the block's
//	                 other lines as its body
//	    indented     lines starting with a space: a no-fill block (.EX/.EE),
//	                 the common indentation removed, so a command copied
//	                 from the page is one line exactly as written
//	text             filled text; a blank line starts a new paragraph
//
// Every character is escaped (\ - and a leading . or '), so the source
// holds commands as they are typed.
func render(src string) string {
	var b strings.Builder
	blocks := strings.Split(strings.Trim(src, "\n"), "\n\n")
	for _, block := range blocks {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		switch first := lines[0]; {
		case strings.HasPrefix(first, "## "):
			b.WriteString(".SS " + escape(first[3:]) + "\n")
			lines = lines[1:]
		case strings.HasPrefix(first, "# "):
			b.WriteString(".SH " + strings.ToUpper(escape(first[2:])) + "\n")
			lines = lines[1:]
		}
		if len(lines) == 0 {
			continue
		}
		if strings.HasPrefix(lines[0], "+ ") {
			b.WriteString(".TP\n\\fB" + escape(lines[0][2:]) + "\\fR\n")
			lines = lines[1:]
		} else {
			b.WriteString(".PP\n")
		}
		renderLines(&b, lines)
	}
	return b.String()
}

// renderLines writes filled text and no-fill blocks.
func renderLines(b *strings.Builder, lines []string) {
	for i := 0; i < len(lines); {
		if !indented(lines[i]) {
			b.WriteString(escapeLine(lines[i]) + "\n")
			i++
			continue
		}
		j := i
		for j < len(lines) && (indented(lines[j]) || strings.TrimSpace(lines[j]) == "") {
			j++
		}
		block := lines[i:j]
		cut := len(block[0])
		for _, l := range block {
			if strings.TrimSpace(l) != "" {
				cut = min(cut, len(l)-len(strings.TrimLeft(l, " ")))
			}
		}
		b.WriteString(".EX\n")
		for _, l := range block {
			if len(l) >= cut {
				l = l[cut:]
			}
			b.WriteString(escapeLine(l) + "\n")
		}
		b.WriteString(".EE\n")
		i = j
	}
}

func indented(l string) bool { return strings.HasPrefix(l, " ") }

func escape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

func escapeLine(s string) string {
	s = escape(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
