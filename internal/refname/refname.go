// Package refname checks branch names by git's rules
// (git-check-ref-format(1), as `git check-ref-format --branch` applies
// them) with jj's own additions for bookmarks, so a name that git or jj
// would refuse at push time is refused before any work starts.
//
// The rules, each reported by the text of its violation:
//   - not empty, not "@", not "HEAD", not starting with "-";
//   - no component (between slashes) empty, starting with "." or ending
//     with ".lock"; no leading or trailing "/", no "//";
//   - no "..", no "@{", not ending with ".";
//   - no control character, space, "~", "^", ":", "?", "*", "[" or "\";
//   - valid UTF-8 (jj's bookmark names are Unicode text).
package refname

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Check returns nil when branch (a name under refs/heads/, such as
// "feat/x") is a valid git branch and jj bookmark name, else an error
// naming the first rule it breaks.
func Check(branch string) error {
	if msg := violation(branch); msg != "" {
		return errors.New(msg)
	}
	return nil
}

func violation(b string) string {
	switch {
	case b == "":
		return "it is empty"
	case b == "@":
		return `it is "@"`
	case b == "HEAD":
		return `it is "HEAD"`
	case strings.HasPrefix(b, "-"):
		return `it starts with "-"`
	case !utf8.ValidString(b):
		return "it is not valid UTF-8"
	case strings.HasPrefix(b, "/"):
		return `it starts with "/"`
	case strings.HasSuffix(b, "/"):
		return `it ends with "/"`
	case strings.Contains(b, "//"):
		return `it holds "//"`
	case strings.Contains(b, ".."):
		return `it holds ".."`
	case strings.Contains(b, "@{"):
		return `it holds "@{"`
	case strings.HasSuffix(b, "."):
		return `it ends with "."`
	}
	for _, r := range b {
		switch {
		case r < 0x20 || r == 0x7f:
			return "it holds a control character"
		case strings.ContainsRune(" ~^:?*[\\", r):
			return "it holds " + quoteRune(r)
		}
	}
	for _, c := range strings.Split(b, "/") {
		switch {
		case strings.HasPrefix(c, "."):
			return `a component starts with "."`
		case strings.HasSuffix(c, ".lock"):
			return `a component ends with ".lock"`
		}
	}
	return ""
}

func quoteRune(r rune) string {
	if r == ' ' {
		return "a space"
	}
	return `"` + string(r) + `"`
}
