package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// yamlNumber is YAML 1.2 core schema's int and float forms (decimal).
var yamlNumber = lazyregexp.New(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// A reader for the small YAML subset OpenSpec's metadata files use
// (.openspec.yaml, openspec/config.yaml, schema.yaml): block mappings and
// sequences, flow sequences of scalars, quoted and plain scalars, booleans,
// literal and folded block scalars, and comments. Anything else is an
// error, which callers treat as "not valid metadata".

type yamlLine struct {
	indent int
	text   string // without indentation and trailing comment
	raw    string
	num    int
}

func parseYAMLite(content string) (any, error) {
	var lines []yamlLine
	for i, raw := range strings.Split(jstext.NormalizeNewlines(content, true), "\n") {
		trimmed := strings.TrimLeft(raw, " ")
		if strings.HasPrefix(trimmed, "\t") {
			return nil, fmt.Errorf("line %d: tab indentation", i+1)
		}
		text := strings.TrimRight(stripYAMLComment(trimmed), " \t")
		if text == "---" && len(lines) == 0 {
			continue
		}
		lines = append(lines, yamlLine{indent: len(raw) - len(trimmed), text: text, raw: raw, num: i + 1})
	}
	p := &yamlParser{lines: lines}
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	if l := p.lines[p.i]; p.onlyContent() && !strings.HasPrefix(l.text, "- ") && l.text != "-" {
		if _, _, isKey := splitYAMLKey(l.text); !isKey {
			return yamlScalar(l.text, l.num) // a document that is one scalar
		}
	}
	v, err := p.block(p.lines[p.i].indent)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.i < len(p.lines) {
		return nil, fmt.Errorf("line %d: unexpected content", p.lines[p.i].num)
	}
	return v, nil
}

func stripYAMLComment(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case (c == '\'' || c == '"') && scalarStart(s, i):
			// A quoted scalar: skip to its closing quote ('' and \"
			// escape one); a quote inside a plain scalar ("It's") is
			// just a character.
			for i++; i < len(s); i++ {
				if c == '"' && s[i] == '\\' {
					i++
				} else if s[i] == c {
					if c == '\'' && i+1 < len(s) && s[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// scalarStart reports whether position i of line s can start a scalar:
// the line's start, or after a key's ": ", a sequence's "- ", or a flow
// collection's "[", "{" or ",", spaces aside.
func scalarStart(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j == 0 {
		return true
	}
	switch s[j-1] {
	case '[', '{', ',':
		return true
	case ':', '-':
		return j < i // ": x", "- x"; a colon or hyphen inside a word is not one
	}
	return false
}

type yamlParser struct {
	lines []yamlLine
	i     int
}

// onlyContent reports whether the current line is the last non-blank one.
func (p *yamlParser) onlyContent() bool {
	for _, l := range p.lines[p.i+1:] {
		if l.text != "" {
			return false
		}
	}
	return true
}

func (p *yamlParser) skipBlank() {
	for p.i < len(p.lines) && p.lines[p.i].text == "" {
		p.i++
	}
}

func (p *yamlParser) block(indent int) (any, error) {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	l := p.lines[p.i]
	if l.text == "-" || strings.HasPrefix(l.text, "- ") {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *yamlParser) sequence(indent int) (any, error) {
	var out []any
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || p.lines[p.i].indent < indent {
			return out, nil
		}
		l := p.lines[p.i]
		if l.indent != indent || !(l.text == "-" || strings.HasPrefix(l.text, "- ")) {
			return nil, fmt.Errorf("line %d: bad sequence item", l.num)
		}
		rest := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		if rest == "" {
			p.i++
			p.skipBlank()
			if p.i >= len(p.lines) || p.lines[p.i].indent <= indent {
				out = append(out, nil)
				continue
			}
			v, err := p.block(p.lines[p.i].indent)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		// "- key: value" opens a mapping whose keys sit at the item's column.
		col := indent + (len(l.text) - len(rest))
		if _, _, ok := splitYAMLKey(rest); ok {
			p.lines[p.i] = yamlLine{indent: col, text: rest, raw: l.raw, num: l.num}
			v, err := p.mapping(col)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		v, err := yamlScalar(rest, l.num)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.i++
	}
}

func (p *yamlParser) mapping(indent int) (any, error) {
	out := map[string]any{}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || p.lines[p.i].indent < indent {
			return out, nil
		}
		l := p.lines[p.i]
		if l.indent != indent {
			return nil, fmt.Errorf("line %d: bad indentation", l.num)
		}
		key, val, ok := splitYAMLKey(l.text)
		if !ok {
			return nil, fmt.Errorf("line %d: expected key: value", l.num)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("line %d: duplicate key %q", l.num, key)
		}
		p.i++
		switch {
		case val == "":
			p.skipBlank()
			if p.i < len(p.lines) && (p.lines[p.i].indent > indent ||
				(p.lines[p.i].indent == indent && strings.HasPrefix(p.lines[p.i].text, "- "))) {
				v, err := p.block(p.lines[p.i].indent)
				if err != nil {
					return nil, err
				}
				out[key] = v
			} else {
				out[key] = nil
			}
		case val[0] == '|' || val[0] == '>':
			var body []string
			for p.i < len(p.lines) && (p.lines[p.i].indent > indent || strings.TrimSpace(p.lines[p.i].raw) == "") {
				body = append(body, p.lines[p.i].raw)
				p.i++
			}
			v, err := blockScalar(val, indent, body)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", l.num, err)
			}
			out[key] = v
		default:
			if plainScalar(val) && (strings.Contains(val, ": ") || strings.HasSuffix(val, ":")) {
				// "context: Tech stack: Go": YAML reads a second mapping
				// there, which a block mapping's value may not hold.
				return nil, fmt.Errorf("line %d: nested mapping in a compact mapping", l.num)
			}
			v, err := yamlScalar(val, l.num)
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
	}
}

// plainScalar reports whether s (a value, trimmed) is written plain: not
// quoted, not a flow collection, not a block scalar.
func plainScalar(s string) bool {
	return s != "" && !strings.ContainsRune("'\"[{|>", rune(s[0]))
}

func splitYAMLKey(s string) (key, val string, ok bool) {
	if strings.HasPrefix(s, "\"") || strings.HasPrefix(s, "'") {
		q := s[0]
		end := strings.IndexByte(s[1:], q)
		if end < 0 || !strings.HasPrefix(s[end+2:], ":") {
			return "", "", false
		}
		return s[1 : end+1], strings.TrimSpace(s[end+3:]), true
	}
	i := strings.Index(s, ": ")
	if i < 0 {
		if strings.HasSuffix(s, ":") {
			i = len(s) - 1
		} else {
			return "", "", false
		}
	}
	key = strings.TrimSpace(s[:i])
	if key == "" || strings.ContainsAny(key[:1], "[{&*!|>%@`") {
		return "", "", false
	}
	return key, strings.TrimSpace(s[i+1:]), true
}

func yamlScalar(s string, num int) (any, error) {
	switch {
	case strings.HasPrefix(s, "["), strings.HasPrefix(s, "{"):
		return flowCollection(s, num)
	case strings.HasPrefix(s, "&"), strings.HasPrefix(s, "*"), strings.HasPrefix(s, "!"):
		return nil, fmt.Errorf("line %d: unsupported YAML %q", num, s)
	case strings.HasPrefix(s, "@"), strings.HasPrefix(s, "`"), strings.HasPrefix(s, "%"),
		s == "-", strings.HasPrefix(s, "- "), strings.HasPrefix(s, "? "), strings.HasPrefix(s, ": "):
		// Indicators no plain scalar may start with (YAML's reserved
		// @ and `, a directive's %, a block entry, key or value).
		return nil, fmt.Errorf("line %d: a plain value may not start with %q", num, s[:1])
	case strings.HasPrefix(s, "'"):
		if len(s) < 2 || !strings.HasSuffix(s, "'") {
			return nil, fmt.Errorf("line %d: unterminated string", num)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	case strings.HasPrefix(s, "\""):
		if len(s) < 2 || !strings.HasSuffix(s, "\"") {
			return nil, fmt.Errorf("line %d: unterminated string", num)
		}
		v, err := unescapeDouble(s[1 : len(s)-1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", num, err)
		}
		return v, nil
	}
	switch s {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	case "null", "~", "Null", "NULL":
		return nil, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && yamlNumber.MatchString(s) {
		return f, nil
	}
	return coreNumber(s), nil
}

// coreNumber is the rest of YAML 1.2's core schema, as the yaml package
// OpenSpec reads with resolves it: 0o17 and 0x1F as integers, .inf,
// -.Inf and .nan as floats; any other s stays a string.
func coreNumber(s string) any {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	base := 0.0
	switch {
	case strings.HasPrefix(s, "0o"):
		base = 8
	case strings.HasPrefix(s, "0x"):
		base = 16
	}
	if base == 0 || len(s) == 2 {
		return s
	}
	f := 0.0 // as JavaScript's number, however many digits
	for _, c := range s[2:] {
		d := strings.IndexRune("0123456789abcdef", unicode.ToLower(c))
		if d < 0 || float64(d) >= base {
			return s
		}
		f = f*base + float64(d)
	}
	return f
}

// blockScalar is the value of a literal (|) or folded (>) block scalar
// whose header is header (with its chomping and indentation indicators),
// under a key at indent, from its raw lines: the content indented as its
// first non-blank line (or as the indicator says) with any deeper
// indentation kept, and its final line breaks clipped to one (header |),
// stripped (|-) or kept (|+), as YAML 1.2 reads it.
func blockScalar(header string, indent int, raw []string) (string, error) {
	folded, chomp, width := header[0] == '>', byte(0), 0
	for _, c := range []byte(header[1:]) {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && width == 0:
			width = int(c - '0')
		default:
			return "", fmt.Errorf("block scalar header %q", header)
		}
	}
	block := indent + width
	if width == 0 {
		block = -1
		for _, r := range raw {
			if t := strings.TrimLeft(r, " "); t != "" {
				block = len(r) - len(t)
				break
			}
		}
	}
	var lines []string
	for _, r := range raw {
		if strings.TrimLeft(r, " ") == "" {
			if block >= 0 && len(r) > block {
				lines = append(lines, r[block:])
			} else {
				lines = append(lines, "")
			}
			continue
		}
		if len(r)-len(strings.TrimLeft(r, " ")) < block {
			return "", fmt.Errorf("block scalar line %q is less indented than its block", r)
		}
		lines = append(lines, r[block:])
	}
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	trailing := len(lines) - end
	lines = lines[:end]
	var text string
	if folded {
		text = foldLines(lines)
	} else {
		text = strings.Join(lines, "\n")
	}
	switch {
	case len(lines) == 0 && chomp != '+':
		return "", nil
	case chomp == '-':
		return text, nil
	case chomp == '+':
		return text + strings.Repeat("\n", trailing+min(1, len(lines))), nil
	}
	return text + "\n", nil
}

// foldLines joins a folded scalar's lines: a break between two lines of
// text becomes a space, each empty line between them a break; around a
// line indented deeper (or starting with a tab) the breaks are kept.
func foldLines(lines []string) string {
	var b strings.Builder
	deeper := func(l string) bool { return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") }
	last := "" // the last line of text
	empty := 0 // empty lines since it
	for i, l := range lines {
		if l == "" {
			empty++
			continue
		}
		if i > 0 {
			switch {
			case deeper(l) || deeper(last):
				b.WriteString(strings.Repeat("\n", empty+1))
			case empty > 0:
				b.WriteString(strings.Repeat("\n", empty))
			default:
				b.WriteByte(' ')
			}
		} else {
			b.WriteString(strings.Repeat("\n", empty))
		}
		b.WriteString(l)
		last, empty = l, 0
	}
	return b.String()
}

// unescapeDouble is a double-quoted scalar's content with YAML's escapes
// read: \0 \a \b \t \n \v \f \r \e \" \/ \\ \N \_ \L \P, a
// backslash-space, and \xXX, \uXXXX, \UXXXXXXXX. Any other escape is an
// error, as it is to YAML.
func unescapeDouble(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r",
		'e': "\x1b", ' ': " ", '"': `"`, '/': "/", '\\': `\`, 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("a double-quoted string ends in a backslash")
		}
		i++
		if r, ok := simple[s[i]]; ok {
			b.WriteString(r)
			continue
		}
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
		if n == 0 || i+n >= len(s) {
			return "", fmt.Errorf("invalid escape \\%c in a double-quoted string", s[i])
		}
		code, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
		if err != nil {
			return "", fmt.Errorf("invalid escape \\%s in a double-quoted string", s[i:i+1+n])
		}
		b.WriteRune(rune(code))
		i += n
	}
	return b.String(), nil
}
