package spec

import (
	"slices"
	"strings"
	"unicode"
)

// compareKeys compares two names by their collation keys, level by
// level, then by code point.
func compareKeys(ka, kb [3][]int, a, b string) int {
	for level := range 3 {
		if c := compareWeights(ka[level], kb[level]); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// icuPunct is ICU root's order of ASCII's spaces, punctuation and
// symbols.
const icuPunct = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~"

// Primary weight bands, in ICU's order of groups.
const (
	bandPunct    = 1 << 24
	bandSymbol   = 2 << 24 // punctuation and symbols beyond ASCII
	bandCurrency = 3 << 24
	bandDigit    = 4 << 24
	bandLatin    = 5 << 24
	bandOther    = 6 << 24
	bandHan      = 7 << 24
)

// collationKey is s's primary, secondary and tertiary weights.
func collationKey(s string) [3][]int {
	var k [3][]int
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r < 0x20 || r == 0x7f {
			continue // ignorable
		}
		accent := 0
		tertiary := 0
		var primary int
		switch {
		case r < 0x80 && strings.ContainsRune(icuPunct, r):
			primary = bandPunct + strings.IndexRune(icuPunct, r)
		case r >= '0' && r <= '9':
			primary = bandDigit + int(r-'0')
		default:
			base, acc := latinBase(r)
			switch {
			case r == 'ß':
				k[0] = append(k[0], bandLatin+int('s'-'a'), bandLatin+int('s'-'a'))
				k[1] = append(k[1], 0, 1)
				k[2] = append(k[2], 0, 0)
				continue
			case base != 0:
				accent = acc
				if unicode.IsUpper(r) {
					tertiary = 1
				}
				primary = bandLatin + int(unicode.ToLower(base)-'a')
			case unicode.IsDigit(r):
				primary = bandDigit + 10 + int(r)
			case unicode.Is(unicode.Han, r):
				primary = bandHan + int(r)
			case unicode.IsLetter(r) || unicode.IsMark(r):
				if unicode.IsUpper(r) {
					tertiary = 1
				}
				primary = bandOther + int(unicode.ToLower(r))
			case unicode.Is(unicode.Sc, r):
				primary = bandCurrency + int(r)
			default:
				primary = bandSymbol + int(r)
			}
		}
		k[0] = append(k[0], primary)
		k[1] = append(k[1], accent)
		k[2] = append(k[2], tertiary)
	}
	return k
}

func compareWeights(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// latinBase is the base letter of a Latin letter of Latin-1 or Latin
// Extended-A, and a weight for its accent (0 for none); 0 for any
// other rune.
func latinBase(r rune) (rune, int) {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return r, 0
	case r >= 0xC0 && r <= 0x17F:
		if i := int(r - 0xC0); i < len(latin1Bases) && latin1Bases[i] != ' ' {
			// The accent's weight is the lower-case letter's: case is
			// the third level.
			return rune(latin1Bases[i]), 1 + int(unicode.ToLower(r))
		}
	}
	return 0, 0
}

// latin1Bases is the base letter of each rune from U+00C0 to U+017F
// (' ' for none: ×, ÷, and the letters without one).
const latin1Bases = "" +
	"AAAAAAACEEEEIIII" + // C0-CF (Æ as A)
	"DNOOOOO OUUUUY s" + // D0-DF (Þ none, ß as s)
	"aaaaaaaceeeeiiii" + // E0-EF
	"dnooooo ouuuuy y" + // F0-FF
	"AaAaAaCcCcCcCcDd" + // 100-10F
	"DdEeEeEeEeEeGgGg" + // 110-11F
	"GgGgHhHhIiIiIiIi" + // 120-12F
	"IiIiJjKkkLlLlLlL" + // 130-13F
	"lLlNnNnNnnNnOoOo" + // 140-14F
	"OoOoRrRrRrSsSsSs" + // 150-15F
	"SsTtTtTtUuUuUuUu" + // 160-16F
	"UuUuWwYyYZzZzZzs" //  170-17F

// SortLocale sorts s stably by name(s[i]) as OpenSpec's list sorts names
// (String.prototype.localeCompare: ICU's root collation, in Node's
// default English locale), closely enough for names of changes and
// specs: punctuation and symbols first in ICU's order (_ - , ; : ! ? .
// ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~, then the rest, then
// currency signs), then digits, then Latin letters regardless of case
// and accents (ß as ss), then other scripts by code point, Han last;
// ties are broken by accents (none first), then by case (lower first),
// then by code point.
// Each name's collation key is computed once.
func SortLocale[T any](s []T, name func(T) string) {
	type keyed struct {
		key  [3][]int
		name string
		v    T
	}
	ks := make([]keyed, len(s))
	for i, v := range s {
		n := name(v)
		ks[i] = keyed{collationKey(n), n, v}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return compareKeys(a.key, b.key, a.name, b.name) })
	for i := range ks {
		s[i] = ks[i].v
	}
}
