package jjx_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/specstack/specstack/jjx"
)

// jj reads back every string Quote writes: a description holding quotes,
// backslashes, parentheses and control characters is found exactly.
func TestQuoteIsReadByJJ(t *testing.T) {
	r := newRepo(t, nil)
	ctx := t.Context()
	for _, s := range []string{`a "quoted" \ path`, "x) | all() | (y", "tab\there\x01\x7f é\u200b"} {
		if err := r.Describe(ctx, "@", s); err != nil {
			t.Fatal(err)
		}
		cs, err := r.Log(ctx, "description(exact:"+jjx.Quote(s+"\n")+")")
		if err != nil || len(cs) != 1 || cs[0].Description != s+"\n" {
			t.Errorf("description %q: found %+v, %v; want @ alone", s, cs, err)
		}
	}
}

// A user's revset is one argument: text that would close the parentheses
// of a larger expression is a revset jj refuses, never a union with
// root() or all().
func TestUserRevsetCannotEscape(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := t.Context()
	for _, rev := range []string{"@) | (root()", "@) | all() | (@"} {
		cs, err := r.ConflictedRevisions(ctx, rev)
		if err == nil {
			t.Errorf("ConflictedRevisions(%q) = %+v, want jj's parse error", rev, cs)
		}
		err = r.CheckRevset(ctx, rev)
		var re *jjx.RevsetError
		if !errors.As(err, &re) {
			t.Fatalf("CheckRevset(%q) = %v, want a *RevsetError", rev, err)
		}
		if !strings.Contains(re.Message, "Failed to parse revset") || strings.Contains(err.Error(), "json(self)") {
			t.Errorf("CheckRevset(%q) message %q: want jj's parse error without specstack's template", rev, err)
		}
	}
	if err := r.CheckRevset(ctx, "nosuch"); !errors.As(err, new(*jjx.RevsetError)) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("CheckRevset(nosuch) = %v, want a *RevsetError naming it", err)
	}
	if err := r.CheckRevset(ctx, "@- | @"); err != nil {
		t.Errorf("CheckRevset(@- | @) = %v", err)
	}
	cs, err := r.ConflictedRevisions(ctx, "all()")
	if err != nil || len(cs) != 0 {
		t.Errorf("ConflictedRevisions(all()) = %+v, %v; want none", cs, err)
	}
}

// Bookmark names are matched exactly, never as patterns or expressions.
func TestBookmarkNamesAreExact(t *testing.T) {
	r := newRepo(t, nil)
	ctx := t.Context()
	for _, name := range []string{"foo", "bar"} {
		if err := r.BookmarkSet(ctx, name, "@-", false); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"zz | glob:*", "glob:*", `f"oo`, "fo*"} {
		bs, err := r.Bookmarks(ctx, name)
		if err != nil || len(bs) != 0 {
			t.Errorf("Bookmarks(%q) = %+v, %v; want none", name, bs, err)
		}
	}
	bs, err := r.Bookmarks(ctx, "foo")
	if err != nil || len(bs) != 1 || bs[0].Name != "foo" {
		t.Errorf("Bookmarks(foo) = %+v, %v", bs, err)
	}
}

// New finds the change it made from parents given as revsets, each
// resolved on its own.
func TestNewOnRevsetParents(t *testing.T) {
	r := newRepo(t, nil)
	ctx := t.Context()
	id, err := r.New(ctx, "child of two", false, "@-", "@")
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.One(ctx, id)
	if err != nil || len(c.Parents) != 2 || c.Description != "child of two\n" {
		t.Errorf("new change %+v, %v; want two parents", c, err)
	}
	if _, err := r.New(ctx, "x", false, "@) | (root()"); err == nil {
		t.Error("New with parent \"@) | (root()\" succeeded, want jj's parse error")
	}
}

// An id named through jjx.ID is that change or commit even when a
// bookmark carries the same name (pasted bare, the bookmark wins).
func TestIDWinsOverBookmarkOfThatName(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := t.Context()
	base, err := r.Log(ctx, "@-")
	if err != nil || len(base) != 1 {
		t.Fatalf("@- = %+v, %v", base, err)
	}
	at, err := r.Log(ctx, "@")
	if err != nil || len(at) != 1 {
		t.Fatalf("@ = %+v, %v", at, err)
	}
	want := base[0]
	for _, id := range []string{want.ChangeID, want.CommitID} {
		if err := r.BookmarkSet(ctx, id, "@", false); err != nil {
			t.Fatalf("bookmark %s: %v", id, err)
		}
		bare, err := r.CommitIDs(ctx, id)
		if err != nil || len(bare) != 1 || bare[0] != at[0].CommitID {
			t.Fatalf("bare %s = %v, %v; want the bookmark's %s (what the test guards against)", id, bare, err, at[0].CommitID)
		}
		got, err := r.CommitIDs(ctx, jjx.ID(id))
		if err != nil || len(got) != 1 || got[0] != want.CommitID {
			t.Errorf("jjx.ID(%s) = %v, %v; want %s", id, got, err, want.CommitID)
		}
	}
	if got := jjx.ID("main"); got != `"main"` {
		t.Errorf(`jjx.ID("main") = %s, want "main" quoted`, got)
	}
}
