package spec

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// A Purpose nobody wrote, as OpenSpec 1.13.2's purpose-placeholder.js
// finds it: the sentence archive writes for a spec it creates ("TBD -
// created by archiving change NAME. Update Purpose after archive."), or a
// Purpose that opens with TBD or TODO (in capitals, or in any case when
// punctuation or the end of a line follows), fenced lines aside.

var (
	purposeHeader  = lazyregexp.New(`(?i)^ {0,3}##[ \t]+Purpose[ \t]*$`)
	topLevelHeader = lazyregexp.New(`^ {0,3}#{1,2}[ \t]+`)
)

// purposePlaceholder reports whether overview (a parsed spec's Purpose) is
// a placeholder, and the line of content (the spec) that carries it, 0
// when no single line can be named.
func purposePlaceholder(overview, content string) (found bool, line int) {
	prose := jstext.Trim(strings.Join(unfencedLines(overview), "\n"))
	leading := leadingMarker(prose)
	if _, ok := placeholderAt(prose); !leading && !ok {
		return false, 0
	}
	return true, placeholderLine(content, leading)
}

func unfencedLines(text string) []string {
	lines := strings.Split(jstext.NormalizeNewlines(text, false), "\n")
	mask := osFenceMask(lines)
	var out []string
	for i, l := range lines {
		if !mask[i] {
			out = append(out, l)
		}
	}
	return out
}

// leadingMarker: text opens with TBD or TODO as a word, in capitals, or
// in any case with only spaces before the end, a line break or
// punctuation.
func leadingMarker(text string) bool {
	for _, m := range []string{"TBD", "TODO"} {
		if len(text) < len(m) || !strings.EqualFold(text[:len(m)], m) {
			continue
		}
		rest := text[len(m):]
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '_') {
			continue
		}
		if text[:len(m)] == m {
			return true
		}
		rest = strings.TrimLeft(rest, " \t")
		if r, _ := utf8.DecodeRuneInString(rest); rest == "" || strings.ContainsRune("\n:-\u2013\u2014.,;()[]{}", r) {
			return true
		}
	}
	return false
}

// placeholderAt is where the generated sentence's prefix starts in text:
// the last prefix starting at or before the first suffix that has one
// (JavaScript's lastIndexOf(prefix, suffixAt)).
func placeholderAt(text string) (int, bool) {
	for from := 0; ; {
		s := strings.Index(text[from:], purposePlaceholderSuffix)
		if s < 0 {
			return 0, false
		}
		s += from
		if p := strings.LastIndex(text[:min(s+len(purposePlaceholderPrefix), len(text))], purposePlaceholderPrefix); p >= 0 {
			return p, true
		}
		from = s + 1
	}
}

// placeholderLine is the line (1-based) inside content's ## Purpose
// section that carries the placeholder: the first non-blank one for a
// leading marker, the one the generated sentence starts on otherwise; 0
// when there is none.
func placeholderLine(content string, leading bool) int {
	lines := strings.Split(jstext.NormalizeNewlines(content, false), "\n")
	mask := osFenceMask(lines)
	header := -1
	for i, l := range lines {
		if !mask[i] && purposeHeader.MatchString(l) {
			header = i
			break
		}
	}
	if header < 0 {
		return 0
	}
	var texts []string
	var nums []int
	for i := header + 1; i < len(lines); i++ {
		if mask[i] {
			continue
		}
		if topLevelHeader.MatchString(lines[i]) {
			break
		}
		if leading && jstext.Trim(lines[i]) != "" {
			return i + 1
		}
		texts, nums = append(texts, lines[i]), append(nums, i+1)
	}
	if leading {
		return 0
	}
	purpose := strings.Join(texts, "\n")
	at, ok := placeholderAt(purpose)
	if !ok {
		return 0
	}
	return nums[strings.Count(purpose[:at], "\n")]
}
