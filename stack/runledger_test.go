package stack

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/specstack/specstack/internal/ledger"
)

func runDoc(events ...RunEvent) *RunDoc {
	d := ledger.New[RunHeader, RunEvent](RunHeader{Spec: 1, Base: "main", BaseSHA: "base0",
		Tickets: []RunTicket{{Number: 2, Title: "A"}, {Number: 3, Title: "B", BlockedBy: []int{2}}}})
	d.Events = events
	return d
}

func TestFoldRunTicketStates(t *testing.T) {
	tests := []struct {
		name      string
		events    []RunEvent
		want      string // ticket 2's state
		inLane    bool
		published []int
		tip       string
	}{
		{name: "nothing yet", want: StateNotStarted, tip: "base0"},
		{name: "cut", events: []RunEvent{{Kind: evCut, Ticket: 2, Base: "base0"}}, want: StateWorking, tip: "base0"},
		{name: "collected", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evCollected, Ticket: 2, SHA: "a1"}}, want: StateGating, tip: "base0"},
		{name: "in the lane", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evPublishing, Ticket: 2, SHA: "a1"}}, want: StatePublishing, inLane: true, tip: "base0"},
		{name: "halted in the lane stays in it", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evPublishing, Ticket: 2, SHA: "a1"},
			{Kind: evHalted, Ticket: 2, Status: StateFailed, Reason: "network"}}, want: StateFailed, inLane: true, tip: "base0"},
		{name: "published", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evPublishing, Ticket: 2, SHA: "a1"},
			{Kind: evPublished, Ticket: 2, SHA: "a1", PR: 7}}, want: StatePublished, inLane: true, published: []int{2}, tip: "a1"},
		{name: "a second cut starts over", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evHalted, Ticket: 2, Status: StateUnmet},
			{Kind: evResumed}, {Kind: evCut, Ticket: 2}}, want: StateWorking, tip: "base0"},
		{name: "subsumed", events: []RunEvent{{Kind: evCut, Ticket: 2}, {Kind: evSubsumed, Ticket: 2}}, want: StateSubsumed, tip: "base0"},
		{name: "finished on prior work", events: []RunEvent{{Kind: evPriorFinished, Ticket: 2, Reason: "there"}}, want: StateFinishedPrior, tip: "base0"},
		{name: "an unknown ticket is ignored", events: []RunEvent{{Kind: evCut, Ticket: 99}}, want: StateNotStarted, tip: "base0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runDoc(tc.events...)
			s := FoldRun(d)
			got := s.Tickets[2]
			if got.State != tc.want || got.InLane != tc.inLane {
				t.Errorf("state %q, in lane %v; want %q, %v", got.State, got.InLane, tc.want, tc.inLane)
			}
			if !slices.Equal(s.Published, tc.published) {
				t.Errorf("published %v, want %v", s.Published, tc.published)
			}
			if sha, _ := s.Tip(d.Header); sha != tc.tip {
				t.Errorf("tip %s, want %s", sha, tc.tip)
			}
		})
	}
}

func TestRemainsFailsClosed(t *testing.T) {
	d := runDoc(RunEvent{Kind: evPublished, Ticket: 2, PR: 7}, RunEvent{Kind: evSubsumed, Ticket: 3},
		RunEvent{Kind: evUnresolved, Ticket: 2, Finding: "r2-1: still red"})
	got := Remains(d.Header, FoldRun(d))
	want := []string{"#2: unresolved gate finding: r2-1: still red", "#3 B: subsumed (its branch added nothing to the stack); still open"}
	if !slices.Equal(got, want) {
		t.Errorf("Remains = %q, want %q", got, want)
	}
	d = runDoc(RunEvent{Kind: evPublished, Ticket: 2, PR: 7}, RunEvent{Kind: evPublished, Ticket: 3, PR: 8})
	if got := Remains(d.Header, FoldRun(d)); len(got) != 0 {
		t.Errorf("every ticket published: Remains = %q, want none", got)
	}
	d.Header.Reviewer = "review"
	if got := Remains(d.Header, FoldRun(d)); !slices.Equal(got, []string{"the whole-stack review never ran"}) {
		t.Errorf("with a reviewer and no review: Remains = %q", got)
	}
	d.Header.Reviewer = ""
	d.Header.Excluded = []Excluded{{Number: 4, Title: "Deploy", Reason: "needs a human"}}
	if got := Remains(d.Header, FoldRun(d)); !slices.Equal(got, []string{"#4 Deploy: deferred, needs a human; not built by this run"}) {
		t.Errorf("with a ticket deferred to a human: Remains = %q", got)
	}
}

func TestFinalizedOpenReadsIncomplete(t *testing.T) {
	// A ledger written before "incomplete" said "open".
	if got := FoldRun(runDoc(RunEvent{Kind: evFinalized, Status: "open"})).Finalized; got != FinalIncomplete {
		t.Errorf("finalized open folds to %q, want %q", got, FinalIncomplete)
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
