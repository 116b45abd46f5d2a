package spec

import (
	"strings"
	"unicode/utf8"
)

// OpenSpec's patterns are JavaScript regular expressions over UTF-16 text.
// These helpers give Go code the same character classes, byte for byte.

// isJSSpace reports whether r is in JavaScript's \s class (WhiteSpace and
// LineTerminator). It differs from unicode.IsSpace: U+FEFF is in, U+0085
// is out.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// skipJSSpace returns the offset of the first byte at or after i that does
// not start a JavaScript whitespace character.
func skipJSSpace(s string, i int) int {
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			if !isJSSpace(rune(s[i])) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isJSSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// decodeBMP decodes the character at the start of s as one UTF-16 code
// unit would see it: a BMP character (invalid bytes read as U+FFFD, as
// Node's decoder does), or r = -1 for a character outside the BMP, which a
// single-unit class like [^\]\s] cannot match.
func decodeBMP(s string) (r rune, size int) {
	r, size = utf8.DecodeRuneInString(s)
	if r > 0xFFFF {
		return -1, size
	}
	return r, size
}

// jsLineEnd returns the offset of the first character at or after i that
// JavaScript's '.' does not match (\n, \r, U+2028, U+2029), or len(s).
func jsLineEnd(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\n', '\r':
			return i
		}
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x2028 || r == 0x2029 {
			return i
		}
		i += size
	}
	return i
}

// jsTrim is String.prototype.trim: it strips JavaScript whitespace from
// both ends.
func jsTrim(s string) string {
	s = s[skipJSSpace(s, 0):]
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// isJSLineTerminator reports whether r ends a line for JavaScript's '.'
// and multiline anchors.
func isJSLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

// jsTrimEnd is String.prototype.trimEnd.
func jsTrimEnd(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// isAllJSSpace reports whether s holds only JavaScript whitespace.
func isAllJSSpace(s string) bool { return skipJSSpace(s, 0) == len(s) }

// spaceThenRest matches x against \s{min,}(.+)$ (no multiline flag) with
// JavaScript's backtracking and returns the captured group.
func spaceThenRest(x string, min int) (string, bool) {
	// Offsets of rune boundaries inside the leading whitespace run.
	bounds := []int{0}
	for i := 0; i < len(x); {
		r, size := utf8.DecodeRuneInString(x[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
		bounds = append(bounds, i)
	}
	for k := len(bounds) - 1; k >= min; k-- {
		rest := x[bounds[k]:]
		if rest != "" && jsLineEnd(rest, 0) == len(rest) {
			return rest, true
		}
	}
	return "", false
}

// spaceRestSpace matches x against \s*(.+)\s*$ and returns the group.
func spaceRestSpace(x string) (string, bool) {
	bounds := []int{0}
	for i := 0; i < len(x); {
		r, size := utf8.DecodeRuneInString(x[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
		bounds = append(bounds, i)
	}
	for k := len(bounds) - 1; k >= 0; k-- {
		rest := x[bounds[k]:]
		end := jsLineEnd(rest, 0)
		if end > 0 && isAllJSSpace(rest[end:]) {
			return rest[:end], true
		}
	}
	return "", false
}

// hasPrefixFold reports whether s starts with prefix, ASCII letters
// compared without case (JavaScript's /i without the u flag never folds a
// non-ASCII character onto an ASCII one).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := s[i], prefix[i]
		if a >= 'A' && a <= 'Z' {
			a += 'a' - 'A'
		}
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// splitLinesJS normalises line endings the way OpenSpec's parsers do
// (strip a BOM when bom is set, CRLF and lone CR to LF) and splits on '\n'.
func normalizeNewlines(content string, stripBOM bool) string {
	if stripBOM {
		content = strings.TrimPrefix(content, "\ufeff")
	}
	if strings.IndexByte(content, '\r') < 0 {
		return content
	}
	content = strings.ReplaceAll(content, "\r\n", "\n")
	return strings.ReplaceAll(content, "\r", "\n")
}
