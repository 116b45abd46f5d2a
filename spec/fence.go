package spec

import (
	"github.com/specstack/specstack/internal/mdline"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// osFence is OpenSpec's code fence, as its buildCodeFenceMask reads one:
// an opener is ^\s*(`{3,}|~{3,}), a closer is the same character repeated
// at least as often with only whitespace around.
var osFence = mdline.Fence{Indent: jstext.IsSpace, MaxIndent: -1, Closes: jstext.IsAllSpace}

// osFenceMask marks the lines that belong to a fenced code block, the
// opening and closing fence lines included, as OpenSpec does.
func osFenceMask(lines []string) []bool { return osFence.Mask(lines) }

// FenceMask is osFenceMask for other packages: which of lines are in a
// fenced code block, as OpenSpec reads Markdown.
func FenceMask(lines []string) []bool { return osFenceMask(lines) }

// commonMarkFence is a fence as a Markdown renderer sees it,
// /^ {0,3}(`{3,}|~{3,})(.*)/, closed by a run with no info string.
var commonMarkFence = mdline.Fence{
	Indent:    func(r rune) bool { return r == ' ' },
	MaxIndent: 3,
	Closes:    func(rest string) bool { return jstext.IsAllSpace(rest[:jstext.LineEnd(rest, 0)]) },
}

// osBullet is OpenSpec's unordered list marker, ^\s*[-*+], as its delta
// parser reads REMOVED and RENAMED bullets.
var osBullet = mdline.List{Space: jstext.IsSpace, MaxDigits: 0}
