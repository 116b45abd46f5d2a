package stack

import (
	"github.com/specstack/specstack/internal/engine"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/specstack/specstack/internal/ledger"
)

func runDoc(events ...engine.Event) *RunDoc {
	d := ledger.New[RunHeader, engine.RunEvent](RunHeader{Spec: 1, Base: "main", BaseSHA: "base0",
		Tickets: []RunTicket{{Number: 2, Title: "A"}, {Number: 3, Title: "B", BlockedBy: []int{2}}}})
	for _, e := range events {
		d.Events = append(d.Events, engine.RunEvent{Event: e})
	}
	return d
}

func TestFoldRunTicketStates(t *testing.T) {
	tests := []struct {
		name      string
		events    []engine.Event
		want      string // ticket 2's state
		inLane    bool
		published []int
		tip       string
	}{
		{name: "nothing yet", want: engine.StateNotStarted, tip: "base0"},
		{name: "cut", events: []engine.Event{at(2, engine.Cut{Base: "base0"})}, want: engine.StateWorking, tip: "base0"},
		{name: "collected", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.TicketCollected{SHA: "a1"})}, want: engine.StateGating, tip: "base0"},
		{name: "in the lane", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.Publishing{SHA: "a1"})}, want: engine.StatePublishing, inLane: true, tip: "base0"},
		{name: "halted in the lane stays in it", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.Publishing{SHA: "a1"}),
			at(2, engine.Halted{Status: engine.StateFailed, Reason: "network"})}, want: engine.StateFailed, inLane: true, tip: "base0"},
		{name: "published", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.Publishing{SHA: "a1"}),
			at(2, engine.Published{SHA: "a1", Number: 7})}, want: engine.StatePublished, inLane: true, published: []int{2}, tip: "a1"},
		{name: "a second cut starts over", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.Halted{Status: engine.StateUnmet}),
			run(engine.Resumed{}), at(2, engine.Cut{})}, want: engine.StateWorking, tip: "base0"},
		{name: "subsumed", events: []engine.Event{at(2, engine.Cut{}), at(2, engine.Subsumed{})}, want: engine.StateSubsumed, tip: "base0"},
		{name: "finished on prior work", events: []engine.Event{at(2, engine.PriorFinished{Evidence: "there"})}, want: engine.StateFinishedPrior, tip: "base0"},
		{name: "an unknown ticket is ignored", events: []engine.Event{at(99, engine.Cut{})}, want: engine.StateNotStarted, tip: "base0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runDoc(tc.events...)
			s := foldRun(d)
			got := s.Tickets[2]
			if got.State != tc.want || got.InLane != tc.inLane {
				t.Errorf("state %q, in lane %v; want %q, %v", got.State, got.InLane, tc.want, tc.inLane)
			}
			if !slices.Equal(s.Published, tc.published) {
				t.Errorf("published %v, want %v", s.Published, tc.published)
			}
			if sha, _ := tipOf(s, d.Header); sha != tc.tip {
				t.Errorf("tip %s, want %s", sha, tc.tip)
			}
		})
	}
}

func TestRemainsFailsClosed(t *testing.T) {
	d := runDoc(at(2, engine.Published{Number: 7}), at(3, engine.Subsumed{}),
		at(2, engine.FindingUnresolved{Finding: "r2-1: still red"}))
	got := Remains(d.Header, foldRun(d))
	want := []string{"#2: unresolved gate finding: r2-1: still red", "#3 B: subsumed (its branch added nothing to the stack); still open"}
	if !slices.Equal(got, want) {
		t.Errorf("Remains = %q, want %q", got, want)
	}
	d = runDoc(at(2, engine.Published{Number: 7}), at(3, engine.Published{Number: 8}))
	if got := Remains(d.Header, foldRun(d)); len(got) != 0 {
		t.Errorf("every ticket published: Remains = %q, want none", got)
	}
	d.Header.Reviewer = "review"
	if got := Remains(d.Header, foldRun(d)); !slices.Equal(got, []string{"the whole-stack review never ran"}) {
		t.Errorf("with a reviewer and no review: Remains = %q", got)
	}
	d.Header.Reviewer = ""
	d.Header.Excluded = []Excluded{{Number: 4, Title: "Deploy", Reason: "needs a human"}}
	if got := Remains(d.Header, foldRun(d)); !slices.Equal(got, []string{"#4 Deploy: deferred, needs a human; not built by this run"}) {
		t.Errorf("with a ticket deferred to a human: Remains = %q", got)
	}
}

func TestFinalizedOpenReadsIncomplete(t *testing.T) {
	// A ledger written before "incomplete" said "open"; complete fails
	// closed: a word no version wrote is incomplete too.
	for st, want := range map[string]string{"open": engine.FinalIncomplete, "partial": engine.FinalIncomplete, "": engine.FinalIncomplete,
		engine.FinalIncomplete: engine.FinalIncomplete, engine.FinalComplete: engine.FinalComplete, engine.FinalAborted: engine.FinalAborted} {
		if got := foldRun(runDoc(run(engine.Finalized{Status: st}))).Finalized; got != want {
			t.Errorf("finalized %q folds to %q, want %q", st, got, want)
		}
	}
}

func TestDecisions(t *testing.T) {
	tests := []struct{ report, want string }{
		{"Status: DONE\n\n## Decisions\n- flat file\n- no cache\n\n## Notes\nx\n", "- flat file\n- no cache"},
		{"# Report\n## decisions\nkept the API\n# Other\nno\n", "kept the API"},
		{"Status: DONE\n### Decisions\nnot a level-2 heading\n", ""},
		{"", ""},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		p := filepath.Join(dir, "r"+itoa(i))
		if err := os.WriteFile(p, []byte(tc.report), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := decisions(p); got != tc.want {
			t.Errorf("decisions(%q) = %q, want %q", tc.report, got, tc.want)
		}
	}
	if got := decisions(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("a missing report: %q", got)
	}
}
