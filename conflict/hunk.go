package conflict

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// Style is the marker format of one conflict hunk.
type Style string

// The marker formats Parse reads.
const (
	// StyleDiff is jj's default: a snapshot of one side and, for each other
	// side, a diff from a base ("%%%%%%%" and "\\\\\\\" markers).
	StyleDiff Style = "diff"
	// StyleSnapshot is jj's "+++++++" sides and "-------" bases.
	StyleSnapshot Style = "snapshot"
	// StyleGit is git's own format, which jj also writes for two sides:
	// "<<<<<<<", an optional "|||||||" base, "=======", ">>>>>>>".
	StyleGit Style = "git"
)

// File is a parsed file: plain text and conflict hunks in file order.
// Render(Parse(x)) == x for every x.
type File struct {
	Segments []Segment `json:"-"`
	Hunks    []*Hunk   `json:"hunks"`
	// Problems lists what Parse left as plain text and why: markers it
	// could not read, a binary file, invalid UTF-8.
	Problems []Problem `json:"problems,omitempty"`
	// Binary is set for files with a NUL byte; they are never scanned.
	Binary bool `json:"binary,omitempty"`
	// InvalidUTF8 is set when the file is not valid UTF-8; its hunks are
	// reported but never resolved.
	InvalidUTF8 bool `json:"invalid_utf8,omitempty"`
}

// Segment is either plain text or one conflict hunk.
type Segment struct {
	Text string // when Hunk is nil
	Hunk *Hunk
}

// Resolvable reports whether strategies may rewrite the file: it is text,
// valid UTF-8, and every conflict it opens is well formed. (A stray
// "=======" outside any conflict, such as a reStructuredText underline, is
// reported but does not block resolving the real hunks around it.)
func (f *File) Resolvable() bool {
	if f.Binary || f.InvalidUTF8 {
		return false
	}
	for _, p := range f.Problems {
		if p.Kind != ProblemStray {
			return false
		}
	}
	return true
}

// Problem is something Parse left as plain text, with where and why.
type Problem struct {
	Line    int    `json:"line"` // 1-based; 0 for the whole file
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Problem kinds.
const (
	ProblemBinary       = "binary"
	ProblemInvalidUTF8  = "invalid-utf8"
	ProblemUnterminated = "unterminated"
	ProblemMalformed    = "malformed"
	ProblemStray        = "stray-marker"
)

func (p Problem) String() string {
	if p.Line > 0 {
		return "line " + itoa(p.Line) + ": " + p.Message
	}
	return p.Message
}

// Hunk is one conflict: its sides and bases, the labels jj or git wrote
// for them, and where it sits in the file.
type Hunk struct {
	Index     int    `json:"index"` // 1-based, in file order
	Style     Style  `json:"style"`
	MarkerLen int    `json:"marker_len"`
	StartLine int    `json:"start_line"` // 1-based line of the opening marker
	EndLine   int    `json:"end_line"`   // 1-based line of the closing marker
	Info      string `json:"info,omitempty"`
	// Sides are the conflicting versions, in file order; for two sides the
	// first is "ours" (jj's destination, git's HEAD) and the second "theirs".
	Sides []Term `json:"sides"`
	// Bases are the versions the sides diverged from: one fewer than the
	// sides for jj, one or none for git (git's default style has none).
	Bases []Term `json:"bases"`

	open, close string // raw marker lines, with their line ends
	blocks      []block
	eol         string // the opening marker's line end
}

// Term is one side or base of a hunk.
type Term struct {
	Label Label  `json:"label"`
	Text  string `json:"text"` // its lines, each with its line end
}

// Lines splits the term's text into lines, each keeping its line end.

type blockKind uint8

const (
	blockAdd      blockKind = iota // "+++++++" side snapshot
	blockRemove                    // "-------" base snapshot
	blockDiff                      // "%%%%%%%" diff from a base to a side
	blockGitLeft                   // git: first side, after the opening marker
	blockGitBase                   // git: "|||||||" base
	blockGitRight                  // git: "=======" second side
)

// block is one marker-headed part of a hunk, kept verbatim for Render.
type block struct {
	kind blockKind
	head string // the marker line; "" for blockGitLeft
	note string // diff blocks: the "\\\\\\\        to:" line, if any
	body string // content lines, verbatim
}

// SplitLines splits s after each '\n'; a last line without one is kept.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	out := make([]string, 0, n)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
