package conflict

import "strings"

// Label is what jj or git wrote after a marker to name a side or base.
// jj writes `<change id> <commit id> "<description>" (<note>)`, for
// example `rqyqzqzm 5ed0237a "B" (squashed revision)`; git writes a ref
// or commit ("HEAD", "feature", "a1b2c3d (message)"). The fields are
// filled when Text has jj's shape; Text always holds the whole label.
type Label struct {
	Text        string `json:"text"`
	ChangeID    string `json:"change_id,omitempty"`
	CommitID    string `json:"commit_id,omitempty"`
	Description string `json:"description,omitempty"`
	Note        string `json:"note,omitempty"`
	// NoFinalNewline is set when jj marked the term "(no terminating
	// newline)": its text does not end with a line end.
	NoFinalNewline bool `json:"no_final_newline,omitempty"`
}

const noEOLNote = "(no terminating newline)"

// ParseLabel reads a marker label.
func ParseLabel(text string) Label {
	l := Label{Text: text}
	rest := text
	if r, ok := strings.CutSuffix(rest, " "+noEOLNote); ok {
		l.NoFinalNewline = true
		rest = r
	} else if rest == noEOLNote {
		l.NoFinalNewline = true
		return l
	}
	change, after, ok := strings.Cut(rest, " ")
	if !ok || !isChangeID(change) {
		return l
	}
	commit, after, _ := strings.Cut(after, " ")
	if !isHex(commit) {
		return l
	}
	l.ChangeID, l.CommitID = change, commit
	if strings.HasPrefix(after, `"`) {
		// jj does not escape quotes inside the description, so the last
		// quote closes it; a note never holds one.
		if i := strings.LastIndexByte(after, '"'); i > 0 {
			l.Description = after[1:i]
			after = strings.TrimSpace(after[i+1:])
		}
	}
	if strings.HasPrefix(after, "(") && strings.HasSuffix(after, ")") {
		l.Note = after[1 : len(after)-1]
	}
	return l
}

// isChangeID reports whether s looks like a jj change id (letters k-z).
func isChangeID(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'k' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
