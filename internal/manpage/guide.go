package manpage

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// The guides are section 7 pages, one per workflow (gittutorial(7) and
// gitworkflows(7) are the model): Markdown sources in guides/, rendered
// to roff here, drift-tested like the section 1 pages.
//
//go:embed guides/*.md
var guideFS embed.FS

// Guides returns file name → man page (section 7) for every guide.
func Guides() (map[string]string, error) {
	entries, err := guideFS.ReadDir("guides")
	if err != nil {
		return nil, fmt.Errorf("read the guides: %w", err)
	}
	pages := map[string]string{}
	for _, e := range entries {
		src, err := guideFS.ReadFile(path.Join("guides", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read the guide %s: %w", e.Name(), err)
		}
		name := strings.TrimSuffix(e.Name(), ".md")
		page, err := renderGuide(name, string(src))
		if err != nil {
			return nil, fmt.Errorf("render the guide %s: %w", e.Name(), err)
		}
		pages[name+".7"] = page
	}
	return pages, nil
}

// renderGuide turns a guide's Markdown into a man page. The Markdown is the
// subset the guides use:
//
//	# name - summary      the first line: NAME's line (and the page's name)
//	## Title              a section (.SH)
//	### Title             a subsection (.SS)
//	#### Title            a bold paragraph heading
//	```lang ... ```       a no-fill block (.EX/.EE), verbatim
//	- item, 1. item       a list item; following lines indented by two
//	                      spaces or more continue it, and so do indented
//	                      paragraphs and fenced blocks after a blank line
//	                      (a fence closes at the indentation it opened at;
//	                      that indentation is removed from its lines)
//	| a | b |             a table (tbl), its second row the |---| rule
//	text                  filled text; `code` and **strong** are bold,
//	                      *emphasis* italic, [text](target) its text
//
// Anything else is an error, so a guide cannot silently render wrong.
func renderGuide(name, src string) (string, error) {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# "+name+" - ") {
		return "", fmt.Errorf("the first line must be \"# %s - SUMMARY\"", name)
	}
	summary := strings.TrimPrefix(lines[0], "# "+name+" - ")
	var b strings.Builder
	b.WriteString("'\\\" t\n.TH " + name + " 7\n.nh\n.ad l\n")
	for _, f := range glyphFallbacks {
		if strings.ContainsRune(src, f.r) {
			fmt.Fprintf(&b, ".if !c\\[u%04X] .char \\[u%04X] %s\n", f.r, f.r, f.glyph)
		}
	}
	b.WriteString(".SH NAME\n" + escapeText(name) + " \\- " + escapeText(summary) + "\n")
	var para []string
	paraInItem := false // para continues a list item
	flush := func() {
		if len(para) > 0 {
			start := ".PP\n"
			if paraInItem {
				start = ".IP \"\" 4\n"
			}
			b.WriteString(start + inline(strings.Join(para, " ")) + "\n")
			para = nil
		}
	}
	// item: the last block at the margin was a list item, so indented
	// blocks after it continue it.
	item := false
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		text := strings.TrimLeft(l, " ")
		indent := len(l) - len(text)
		if text != "" && indent == 0 {
			item = false
		}
		switch {
		case text == "":
			flush()
		case strings.HasPrefix(text, "```"):
			flush()
			if indent > 0 && !item {
				return "", fmt.Errorf("line %d: an indented code block outside a list item", i+1)
			}
			fence := l[:indent] + "```"
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], fence) {
				j++
			}
			if j == len(lines) {
				return "", fmt.Errorf("line %d: a code block that never ends", i+1)
			}
			// Indented 4 from the text it belongs to: the margin's, or
			// the list item's (itself 4 in).
			rs := ".RS 4"
			if indent > 0 {
				rs = ".RS 8"
			}
			b.WriteString(".PP\n" + rs + "\n.EX\n")
			for k, c := range lines[i+1 : j] {
				if strings.TrimSpace(c) != "" && !strings.HasPrefix(c, l[:indent]) {
					return "", fmt.Errorf("line %d: a line of a code block indented less than its fence", i+2+k)
				}
				c = strings.TrimPrefix(c, l[:indent])
				b.WriteString(escapeUnicode(escapeLine(c)) + "\n")
			}
			b.WriteString(".EE\n.RE\n")
			i = j
		case strings.HasPrefix(l, "#### "):
			flush()
			b.WriteString(".PP\n\\fB" + inline(l[5:]) + "\\fR\n")
		case strings.HasPrefix(l, "### "):
			flush()
			b.WriteString(".SS " + inline(l[4:]) + "\n")
		case strings.HasPrefix(l, "## "):
			flush()
			b.WriteString(".SH " + strings.ToUpper(inline(l[3:])) + "\n")
		case strings.HasPrefix(l, "#"):
			return "", fmt.Errorf("line %d: a heading deeper than ####, or without its space: %q", i+1, l)
		case strings.HasPrefix(l, "|"):
			flush()
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			t, err := table(lines[i:j])
			if err != nil {
				return "", fmt.Errorf("line %d: %w", i+1, err)
			}
			b.WriteString(t)
			i = j - 1
		case listItem.MatchString(l):
			flush()
			item = true
			m := listItem.FindStringSubmatch(l)
			text := []string{m[2]}
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") && strings.TrimSpace(lines[i+1]) != "" {
				i++
				text = append(text, strings.TrimSpace(lines[i]))
			}
			mark := "\\(bu"
			if m[1] != "-" {
				mark = m[1]
			}
			b.WriteString(".IP " + mark + " 4\n" + inline(strings.Join(text, " ")) + "\n")
		default:
			if len(para) == 0 {
				paraInItem = item && indent > 0
			}
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	return b.String(), nil
}

var listItem = regexp.MustCompile(`^(-|\d+\.) (.*)$`)

// glyphFallbacks are characters the guides quote (in a tool's output) that
// some groff devices lack: PostScript and PDF have no U+2716, which
// OpenSpec prints before "Error:". Where the device lacks one, the page
// defines it as the glyph given; a terminal (-Tutf8) still shows the real
// one.
var glyphFallbacks = []struct {
	r     rune
	glyph string
}{
	{'\u2716', `\[mu]`},
}

// table renders a Markdown table with tbl: a bold header row, every cell
// a text block so that long cells fill.
func table(rows []string) (string, error) {
	if len(rows) < 2 || !regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+$`).MatchString(rows[1]) {
		return "", fmt.Errorf("a table needs a header row and a |---| rule")
	}
	var cells [][]string
	for _, r := range append(rows[:1:1], rows[2:]...) {
		c := splitRow(r)
		if len(cells) > 0 && len(c) != len(cells[0]) {
			return "", fmt.Errorf("table row %q has %d cells, the header %d", r, len(c), len(cells[0]))
		}
		cells = append(cells, c)
	}
	var b strings.Builder
	b.WriteString(".PP\n.TS\nallbox tab(\t);\n")
	n := len(cells[0])
	b.WriteString(strings.TrimSpace(strings.Repeat("lb ", n)) + "\n")
	b.WriteString(strings.TrimSpace(strings.Repeat("lx ", n)) + ".\n")
	for _, row := range cells {
		for k, c := range row {
			if k > 0 {
				b.WriteString("\t")
			}
			b.WriteString("T{\n" + inline(c) + "\nT}")
		}
		b.WriteString("\n")
	}
	b.WriteString(".TE\n")
	return b.String(), nil
}

// splitRow splits "| a | b \| c |" into its cells, unescaping \|.
func splitRow(r string) []string {
	r = strings.TrimSpace(r)
	r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
	var cells []string
	var cur strings.Builder
	inCode := false
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '\\' && i+1 < len(r) && r[i+1] == '|':
			cur.WriteByte('|')
			i++
		case r[i] == '`':
			inCode = !inCode
			cur.WriteByte('`')
		case r[i] == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(r[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var (
	inlineCode = regexp.MustCompile("`([^`]+)`")
	strong     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	emphasis   = regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*]*)\*`)
	link       = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// inline renders one paragraph's text: code spans are taken out first,
// so that nothing inside them is read as markup.
func inline(s string) string {
	var codes []string
	s = inlineCode.ReplaceAllStringFunc(s, func(m string) string {
		codes = append(codes, m[1:len(m)-1])
		return fmt.Sprintf("\x00%d\x00", len(codes)-1)
	})
	s = link.ReplaceAllString(s, "$1")
	s = escapeText(s)
	s = strong.ReplaceAllString(s, `\fB$1\fR`)
	s = emphasis.ReplaceAllString(s, `$1\fI$2\fR`)
	for i, c := range codes {
		s = strings.Replace(s, fmt.Sprintf("\x00%d\x00", i), `\fB`+escapeText(c)+`\fR`, 1)
	}
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// escapeText escapes roff's specials and writes every non-ASCII character
// as groff's \[uXXXX], which renders without warnings whatever the input
// encoding man(1) assumes.
func escapeText(s string) string {
	return escapeUnicode(escape(s))
}

func escapeUnicode(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\[u%04X]`, r)
	}
	return b.String()
}
