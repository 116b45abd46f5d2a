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

// Bookmarked is the revset of the commit local bookmark name points at
// (none when it is absent or conflicted elsewhere), name quoted.
func Bookmarked(name string) string { return "bookmarks(" + exact(name) + ")" }

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

// The revset expressions specstack asks jj for are built here, from ids
// (made safe by ID) and from each other: no other package assembles revset
// text, so quoting and precedence are decided once.

// Union is the revisions ids name (each by ID); none() when there are none.
func Union(ids ...string) string {
	if len(ids) == 0 {
		return "none()"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = ID(id)
	}
	return strings.Join(parts, "|")
}

// PresentUnion is the revisions ids name that still exist: an id of a
// change abandoned since names nothing instead of failing the query.
func PresentUnion(ids ...string) string {
	if len(ids) == 0 {
		return "none()"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = Present(ID(id))
	}
	return strings.Join(parts, " | ")
}

// ExistedAt is the revisions visible, as they were, at operation op (root
// left out), "" when op is no operation id (an operation expression takes
// no quoted string: op must be hexadecimal to be pasted).
func ExistedAt(op string) string {
	if op == "" || strings.Trim(op, "0123456789abcdef") != "" {
		return ""
	}
	return "at_operation(" + op + ", all()) ~ root()"
}

// LeftBehind is the descendants of ids (each by ID) that no workspace's
// working copy holds: where a worker that moved its @ away left its work.
func LeftBehind(ids ...string) string { return "(" + Union(ids...) + ")::" + " ~ ::working_copies()" }

// Present is the revisions of revset, or none when they do not exist.
func Present(revset string) string { return "present(" + revset + ")" }

// Range is the revisions that are ancestors of to but not of from
// (jj's from..to).
func Range(from, to string) string { return "(" + from + ")..(" + to + ")" }

// DAGRange is the descendants of from that are ancestors of to (from::to).
func DAGRange(from, to string) string { return "(" + from + ")::(" + to + ")" }

// Roots is the revisions of revset none of whose ancestors are in it.
func Roots(revset string) string { return "roots(" + revset + ")" }

// Ancestors is revset and its ancestors (::revset).
func Ancestors(revset string) string { return "::(" + revset + ")" }

// AncestorsNotOf is the ancestors of revset that are not ancestors of base
// (::revset ~ ::base): what revset added on top of base.
func AncestorsNotOf(revset, base string) string {
	return Ancestors(revset) + " ~ " + Ancestors(base)
}

// RootsTouching is the roots of revset among its revisions that touch a
// file under dir (a repository-relative folder).
func RootsTouching(revset, dir string) string {
	return "roots((" + revset + ") & files(root:" + Quote(dir) + "))"
}

// LatestDescribed is the newest descendant of base whose description
// contains message.
func LatestDescribed(base, message string) string {
	return "latest(descendants(" + base + ") & description(substring:" + Quote(message) + "))"
}

// CommitInRange is the commit id, when it exists and lies in from..to.
func CommitInRange(id, from, to string) string {
	return Present("commit_id("+Quote(id)+")") + " & " + Range(from, to)
}

// WorkspaceHead is the working-copy commit of the workspace name, when
// the workspace still exists.
func WorkspaceHead(name string) string { return Present(Quote(name) + "@") }

// LeftoverHead is the working-copy commit of the workspace name when
// nobody would miss it once the workspace is forgotten: empty, the head
// of nothing, no bookmark on it. `jj workspace forget` abandons such a
// change only when it has no description; a described one ("baseline",
// "#3: API" above the ticket's commit) would stay in `jj log`.
func LeftoverHead(name string) string {
	return WorkspaceHead(name) + " & empty() & heads(all()) & ~(bookmarks() | remote_bookmarks() | root())"
}
