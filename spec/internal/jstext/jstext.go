// Package jstext gives Go code the character classes of OpenSpec's JavaScript
// regular expressions, byte for byte.
package jstext

import (
	"strings"
	"unicode/utf8"
)

// IsSpace reports whether r is in JavaScript's \s class (WhiteSpace and
// LineTerminator). It differs from unicode.IsSpace: U+FEFF is in, U+0085
// is out.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// SkipSpace returns the offset of the first byte at or after i that does
// not start a JavaScript whitespace character.
func SkipSpace(s string, i int) int {
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			if !IsSpace(rune(s[i])) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// DecodeBMP decodes the character at the start of s as one UTF-16 code
// unit would see it: a BMP character (invalid bytes read as U+FFFD, as
// Node's decoder does), or r = -1 for a character outside the BMP, which a
// single-unit class like [^\]\s] cannot match.
func DecodeBMP(s string) (r rune, size int) {
	r, size = utf8.DecodeRuneInString(s)
	if r > 0xFFFF {
		return -1, size
	}
	return r, size
}

// LineEnd returns the offset of the first character at or after i that
// JavaScript's '.' does not match (\n, \r, U+2028, U+2029), or len(s).
func LineEnd(s string, i int) int {
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

// Trim is String.prototype.trim: it strips JavaScript whitespace from
// both ends.
func Trim(s string) string {
	s = s[SkipSpace(s, 0):]
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !IsSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// IsLineTerminator reports whether r ends a line for JavaScript's '.'
// and multiline anchors.
func IsLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

// TrimEnd is String.prototype.trimEnd.
func TrimEnd(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !IsSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// IsAllSpace reports whether s holds only JavaScript whitespace.
func IsAllSpace(s string) bool { return SkipSpace(s, 0) == len(s) }

// SpaceThenRest matches x against \s{min,}(.+)$ (no multiline flag) with
// JavaScript's backtracking and returns the captured group.
func SpaceThenRest(x string, min int) (string, bool) {
	// Offsets of rune boundaries inside the leading whitespace run.
	bounds := []int{0}
	for i := 0; i < len(x); {
		r, size := utf8.DecodeRuneInString(x[i:])
		if !IsSpace(r) {
			break
		}
		i += size
		bounds = append(bounds, i)
	}
	for k := len(bounds) - 1; k >= min; k-- {
		rest := x[bounds[k]:]
		if rest != "" && LineEnd(rest, 0) == len(rest) {
			return rest, true
		}
	}
	return "", false
}

// SpaceRestSpace matches x against \s*(.+)\s*$ and returns the group.
func SpaceRestSpace(x string) (string, bool) {
	bounds := []int{0}
	for i := 0; i < len(x); {
		r, size := utf8.DecodeRuneInString(x[i:])
		if !IsSpace(r) {
			break
		}
		i += size
		bounds = append(bounds, i)
	}
	for k := len(bounds) - 1; k >= 0; k-- {
		rest := x[bounds[k]:]
		end := LineEnd(rest, 0)
		if end > 0 && IsAllSpace(rest[end:]) {
			return rest[:end], true
		}
	}
	return "", false
}

// HasPrefixFold reports whether s starts with prefix, ASCII letters
// compared without case (JavaScript's /i without the u flag never folds a
// non-ASCII character onto an ASCII one).
func HasPrefixFold(s, prefix string) bool {
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

// NormalizeNewlines normalises line endings the way OpenSpec's parsers do
// (strip a BOM when bom is set, CRLF and lone CR to LF) and splits on '\n'.
func NormalizeNewlines(content string, stripBOM bool) string {
	if stripBOM {
		content = strings.TrimPrefix(content, "\ufeff")
	}
	if strings.IndexByte(content, '\r') < 0 {
		return content
	}
	content = strings.ReplaceAll(content, "\r\n", "\n")
	return strings.ReplaceAll(content, "\r", "\n")
}

// Decode is b as Node reads a file as UTF-8 (fs.readFile(p, "utf-8")):
// every ill-formed sequence becomes one U+FFFD per maximal subpart, as the
// WHATWG Encoding standard decodes it (E2 82 followed by "A" is one U+FFFD
// and "A"; each byte of ED A0 80 is one). Valid text is b itself.
func Decode(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += subpart(b[i:])
	}
	return out
}

// subpart is the length of the maximal subpart at the start of b, an
// ill-formed sequence: its lead byte and the continuation bytes that
// still fit that lead (the ranges of the Encoding standard's decoder).
func subpart(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
