package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/jjx"
)

// OffBaseError reports a workspace whose worker moved its working copy
// off the base it was given (jj new or jj edit elsewhere; git checkout
// or reset away from its branch): what it made is not where the run
// reads it, so nothing of it is collected and the workspace is kept.
// Detail says where @ (HEAD) is and where the work may be.
type OffBaseError struct {
	Workspace string
	Detail    string
}

func (e *OffBaseError) Error() string {
	return fmt.Sprintf("workspace %s: its worker moved its working copy off its base: %s; nothing of it is collected and the workspace is kept", e.Workspace, e.Detail)
}

// offBase checks that cs, the range from ws's base to its @ (newest
// first), starts on the base: some change of it has a base (a change or
// a commit ID) as a parent.
// A workspace's @ is made on its base (a merge of its bases), so a range
// that does not reach one is an @ the worker moved elsewhere (jj new
// root(), jj edit of another change), and one that is empty is an @ it
// moved onto the base or below it; what it made is then in changes the
// range does not hold, and reading the range would collect nothing, or
// the wrong thing, in silence.
func offBase(ws Workspace, cs []jjx.CommitDetail) error {
	if len(ws.Base) == 0 {
		return nil
	}
	isBase := func(id string) bool {
		for _, b := range ws.Base {
			if b != "" && (strings.HasPrefix(id, b) || strings.HasPrefix(b, id)) {
				return true
			}
		}
		return false
	}
	for _, c := range cs {
		if slices.ContainsFunc(c.ParentChangeIDs, isBase) || slices.ContainsFunc(c.Parents, isBase) {
			return nil
		}
	}
	shorts := make([]string, len(ws.Base))
	for i, b := range ws.Base {
		shorts[i] = short(b)
	}
	where := "its @ is its base, or below it"
	if len(cs) > 0 {
		where = fmt.Sprintf("its @ %s is not a descendant of its base %s", short(cs[0].ChangeID), strings.Join(shorts, ", "))
	}
	return &OffBaseError{Workspace: ws.Name, Detail: fmt.Sprintf("%s; what it made is in changes on the base that no working copy holds: `jj log -r '%s'`", where, jjx.LeftBehind(shorts...))}
}

// earlier refuses a range holding a change that was there, as it is,
// when the run started (CommitDetail.Marked): a worker that put its @ on
// a person's change (jj new BRANCH, jj edit) would have that change read
// as its own work, squashed into @ and gone from its branch.
func earlier(ws Workspace, cs []jjx.CommitDetail) error {
	var theirs []string
	for _, c := range cs {
		if c.Marked {
			theirs = append(theirs, fmt.Sprintf("%s %q", short(c.ChangeID), strings.SplitN(strings.TrimSpace(c.Description), "\n", 2)[0]))
		}
	}
	if len(theirs) == 0 {
		return nil
	}
	return &OffBaseError{Workspace: ws.Name, Detail: fmt.Sprintf("its @ is on %s, which %s there before the run started and %s none of its work (jj new or jj edit onto it); those changes are left as they are",
		strings.Join(theirs, ", "), plural.Word(len(theirs), "was", "were"), plural.Word(len(theirs), "is", "are"))}
}

// Changes reads the range from ws's base to its @, held to offBase and,
// when ws.Since is set, to earlier.
func (b *JJBackend) Changes(ctx context.Context, ws Workspace) ([]Change, error) {
	rng := jjx.Range(jjx.Union(ws.Base...), "@")
	// One call reads the range and marks what was there when the run
	// started; an operation jj no longer has (jj op abandon) leaves the
	// plain read.
	existed := jjx.ExistedAt(ws.Since)
	cs, err := b.logIn(ctx, ws, rng, existed)
	if err != nil && existed != "" {
		cs, err = b.logIn(ctx, ws, rng, "")
	}
	if err == nil {
		err = earlier(ws, cs)
	}
	if err == nil {
		err = offBase(ws, cs)
	}
	return changesOf(cs), err
}
