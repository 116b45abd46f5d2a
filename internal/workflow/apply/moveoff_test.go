package apply

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/jjx"
)

// TestMoveOff: a landed apply leaves @ on a new empty change on the
// applied one, whose commit and bookmark stay as they were; a pipeline
// member's @, and an @ that moved off the bookmark while apply ran, stay
// where they are.
func TestMoveOff(t *testing.T) {
	ctx := t.Context()
	dir, jj := jjRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "export.ts"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jj("describe", "-m", "feat: export")
	jj("bookmark", "set", "feat/export", "-r", "@")
	applied := jj("log", "-r", "@", "--no-graph", "-T", "commit_id")
	repo, err := jjx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	log := func(rev, tmpl string) string { return jj("log", "-r", rev, "--no-graph", "-T", tmpl) }

	// A pipeline member: @ stays.
	if id, err := moveOff(ctx, &Env{Repo: repo, Out: io.Discard, Member: true}, "feat/export"); err != nil || id != "" {
		t.Fatalf("member: %q, %v; want nothing done", id, err)
	}
	if got := log("@", "commit_id"); got != applied {
		t.Fatalf("member: @ is %s, want the applied %s", got, applied)
	}

	// @ on the bookmark: a new empty change on it.
	var out strings.Builder
	id, err := moveOff(ctx, &Env{Repo: repo, Out: &out}, "feat/export")
	if err != nil || id == "" {
		t.Fatalf("moveOff: %q, %v", id, err)
	}
	if got := log("@", `change_id ++ " " ++ empty`); got != id+" true" {
		t.Errorf("@ is %q, want %q (new and empty)", got, id+" true")
	}
	if got := log("@-", "commit_id"); got != applied {
		t.Errorf("@- is %s, want the applied %s", got, applied)
	}
	if got := log("feat/export", "commit_id"); got != applied {
		t.Errorf("the bookmark moved to %s, want it on the applied %s", got, applied)
	}
	if !strings.Contains(out.String(), "@ is now a new empty change on feat/export") {
		t.Errorf("said %q", out.String())
	}

	// Run again (@ is no longer the bookmark's change): nothing moves.
	if id, err := moveOff(ctx, &Env{Repo: repo, Out: io.Discard}, "feat/export"); err != nil || id != "" {
		t.Fatalf("@ off the bookmark: %q, %v; want nothing done", id, err)
	}
	if got := log("@-", "commit_id"); got != applied {
		t.Errorf("@ moved again: @- is %s", got)
	}
}
