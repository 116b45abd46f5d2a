package jjx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/xec"
)

// A revset, name or path from a user never becomes part of a larger jj
// expression by pasting its text: it travels as its own argument (each
// `-r` of one `jj log` is parsed on its own, and jj unions them), filters
// run in templates over it, and literal strings inside expressions are
// quoted with Quote.

// RevsetError is a revset jj refuses on its own: a syntax error, or a name
// that resolves to nothing. Message is jj's, about the user's text only.
type RevsetError struct {
	Revset  string
	Message string
}

func (e *RevsetError) Error() string {
	return fmt.Sprintf("revset %q: %s", e.Revset, e.Message)
}

// CheckRevset has jj parse and resolve revset on its own, without
// snapshotting (`jj log -r REVSET -T "" --limit 1`). When jj refuses it
// as a user error, the error is a *RevsetError;
// another failure of jj is returned as such.
func (r *Repo) CheckRevset(ctx context.Context, revset string) error {
	_, err := r.callRead(ctx, "log", "--no-graph", "--limit", "1", "-r", revset, "-T", `""`)
	if err == nil {
		return nil
	}
	var xe *xec.Error
	// jj exits 1 for user errors (a bad revset among them), 2 for a bad
	// command line and 255 for internal errors.
	if errors.As(err, &xe) && xe.ExitCode == 1 {
		msg := strings.TrimSpace(xe.Stderr)
		return &RevsetError{Revset: revset, Message: msg}
	}
	return err
}

// Quote returns s as a jj string literal (revsets, filesets, string
// patterns and templates share the grammar): `"`, `\` and control
// characters are escaped the way jj reads them; everything else is kept.
func Quote(s string) string { return quoteWith(s, `\x%02x`) }

// quoteWith puts s between double quotes, escaping `"` and `\` with a
// backslash and each control character with the format ctl.
func quoteWith(s, ctl string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, ctl, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// exact is the string pattern matching exactly name, for the jj commands
// whose name arguments are patterns (bookmark list/track, git push -b).
func exact(name string) string { return "exact:" + Quote(name) }

// ID is the revset naming exactly the change or commit id: `change_id("…")`
// for a change id (jj writes them with the letters k–z), `commit_id("…")`
// for a hexadecimal commit id. Pasted bare, an id is a symbol, and a
// bookmark or tag of that name would win over it. Anything else is quoted
// as a symbol.
func ID(id string) string {
	switch {
	case id != "" && strings.Trim(id, "klmnopqrstuvwxyz") == "":
		return "change_id(" + Quote(id) + ")"
	case id != "" && strings.Trim(id, "0123456789abcdef") == "":
		return "commit_id(" + Quote(id) + ")"
	}
	return Quote(id)
}
