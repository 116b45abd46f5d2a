package author

import (
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/ledger/ledgertest"
)

func authorDoc(h AuthorRun, ps ...engine.Payload) *AuthorDoc {
	d := ledger.New[AuthorRun, engine.AuthorEvent](h)
	for _, p := range ps {
		d.Events = append(d.Events, engine.AuthorEvent{Event: engine.Event{Payload: p}})
	}
	return d
}

func TestAuthorRunsPhases(t *testing.T) {
	dir := t.TempDir()
	runs := []struct {
		change string
		events []engine.Payload
		phase  string
	}{
		{"a-new", nil, "interrupted before its workspace"},
		{"b-worker", []engine.Payload{engine.AuthorProvisioned{}}, "interrupted after provisioned"},
		{"c-halted", []engine.Payload{engine.AuthorProvisioned{}, engine.AuthorWorked{Status: "blocked"}}, "halted (the worker ended blocked)"},
		{"d-empty", []engine.Payload{engine.AuthorProvisioned{}, engine.AuthorWorked{Status: "done", Reason: "empty"}}, "halted (the worker ended done)"},
		{"e-retried", []engine.Payload{engine.AuthorProvisioned{}, engine.AuthorWorked{Status: "crashed"}, engine.AuthorWorked{Status: "done"}, engine.Drafted{Commit: "c0ffee"}}, "interrupted after drafted"},
		{"f-done", []engine.Payload{engine.AuthorWorked{Status: "done"}, engine.Drafted{Commit: "c0ffee"}, engine.AuthorDone{Status: "invalid"}}, "done (invalid)"},
	}
	for _, r := range runs {
		d := authorDoc(AuthorRun{Change: r.change, Verb: "propose"}, r.events...)
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
	d := authorDoc(AuthorRun{}, engine.AuthorWorked{Status: "done"}, engine.Drafted{Commit: "old"}, engine.AuthorBookmarked{},
		engine.AuthorWorked{Status: "done"})
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
		d := authorDoc(AuthorRun{Change: c, Verb: "propose"})
		if err := d.Write(authorPath(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	as, err := AuthorRuns(dir)
	if err != nil || len(as) != 2 || as[0].Change != "alpha" || as[1].Change != "zeta" {
		t.Errorf("AuthorRuns = %v, %v; want alpha, zeta", as, err)
	}
}

// The ledgers under testdata/ledgers were written by real runs of the
// release before authoring events became the engine's (the
// openspec_propose* e2e scripts, kept with -testwork): every kind decodes
// into its payload type and re-encoding gives the same bytes.
func TestAuthorLedgerRoundTrip(t *testing.T) {
	seen := ledgertest.RoundTrip[AuthorRun](t, filepath.Join("testdata", "ledgers", "*.toml"), func(e engine.AuthorEvent) (string, bool) {
		_, unknown := e.Payload.(engine.Unknown)
		return e.Kind(), !unknown
	})
	for _, k := range []string{engine.EvAuthorProvisioned, engine.EvAuthorWorker, engine.EvAuthorDrafted, engine.EvAuthorBookmarked,
		engine.EvAuthorPublished, engine.EvAuthorReleased, engine.EvAuthorDone} {
		if !seen[k] {
			t.Errorf("no golden ledger holds a %q event", k)
		}
	}
}
