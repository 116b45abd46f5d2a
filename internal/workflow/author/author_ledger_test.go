package author

import (
	"testing"

	"github.com/specstack/specstack/internal/ledger"
)

func TestAuthorRunsPhases(t *testing.T) {
	dir := t.TempDir()
	runs := []struct {
		change string
		events []AuthorEvent
		phase  string
	}{
		{"a-new", nil, "interrupted before its workspace"},
		{"b-worker", []AuthorEvent{{Kind: EvAuthorProvisioned}}, "interrupted after provisioned"},
		{"c-halted", []AuthorEvent{{Kind: EvAuthorProvisioned}, {Kind: EvAuthorWorker, Status: "blocked"}}, "halted (the worker ended blocked)"},
		{"d-empty", []AuthorEvent{{Kind: EvAuthorProvisioned}, {Kind: EvAuthorWorker, Status: "done", Reason: "empty"}}, "halted (the worker ended done)"},
		{"e-retried", []AuthorEvent{{Kind: EvAuthorProvisioned}, {Kind: EvAuthorWorker, Status: "crashed"}, {Kind: EvAuthorWorker, Status: "done"}, {Kind: EvAuthorDrafted, Commit: "c0ffee"}}, "interrupted after drafted"},
		{"f-done", []AuthorEvent{{Kind: EvAuthorWorker, Status: "done"}, {Kind: EvAuthorDrafted, Commit: "c0ffee"}, {Kind: EvAuthorDone, Status: "invalid"}}, "done (invalid)"},
	}
	for _, r := range runs {
		d := ledger.New[AuthorRun, AuthorEvent](AuthorRun{Change: r.change, Verb: "propose"})
		d.Events = r.events
		if err := d.Write(authorPath(dir, r.change)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := AuthorRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(runs) {
		t.Fatalf("AuthorRuns: %d runs, want %d", len(got), len(runs))
	}
	for i, r := range runs {
		if got[i].Change != r.change || got[i].Phase != r.phase {
			t.Errorf("run %d: %s %q, want %s %q", i, got[i].Change, got[i].Phase, r.change, r.phase)
		}
	}
	if got[4].Commit != "c0ffee" {
		t.Errorf("the retried run's commit is %q, want the drafted c0ffee", got[4].Commit)
	}
}

func TestFoldAuthorRetrySupersedes(t *testing.T) {
	d := ledger.New[AuthorRun, AuthorEvent](AuthorRun{})
	d.Events = []AuthorEvent{
		{Kind: EvAuthorWorker, Status: "done"}, {Kind: EvAuthorDrafted, Commit: "old"}, {Kind: EvAuthorBookmarked},
		{Kind: EvAuthorWorker, Status: "done"},
	}
	s := foldAuthor(d)
	if s.Drafted != nil || s.Bookmarked || !workerSucceeded(s.Worker) {
		t.Fatalf("a worker run again must supersede the draft and bookmark before it: %+v", s)
	}
}

// Author records are listed by project.LedgerNames: records written read
// back, in name order.
func TestAuthorRunsListed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []string{"zeta", "alpha"} {
		d := ledger.New[AuthorRun, AuthorEvent](AuthorRun{Change: c, Verb: "propose"})
		if err := d.Write(authorPath(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	as, err := AuthorRuns(dir)
	if err != nil || len(as) != 2 || as[0].Change != "alpha" || as[1].Change != "zeta" {
		t.Errorf("AuthorRuns = %v, %v; want alpha, zeta", as, err)
	}
}
