package stack

import (
	"encoding/json"
	"io"
	"testing"
)

// foldKinds are every event kind a run records, and one it never does.
var foldKinds = []string{evBaseline, evCut, evWorked, evDecisions, evCollected, evReceipt, evReview, evVerdict,
	evDropped, evUnresolved, evRebased, evPublishing, evPushed, evPR, evStacked, evPublished, evSubsumed, evHalted,
	evResumed, evReady, evFinalized, evStackReview, evIntegrating, evIntegrationPushed, evIntegrationPR,
	evIntegrationStacked, evPriorFinished, evPriorGraphed, evPriorPushed, evPriorPR, "unknown"}

// fuzzEvents reads events from data, four bytes each: the kind, the
// ticket (0, a planned one, or one the header does not plan), a number
// for the PR and stack, and a status.
func fuzzEvents(data []byte) []RunEvent {
	tickets := []int{0, 2, 3, 99}
	statuses := []string{"", "passed", "failed", "waived", "rejected", "none", "complete", "open", StateFailed}
	var evs []RunEvent
	for ; len(data) >= 4; data = data[4:] {
		n := int(data[2])
		evs = append(evs, RunEvent{Kind: foldKinds[int(data[0])%len(foldKinds)], Ticket: tickets[int(data[1])%len(tickets)],
			PR: n, Stack: n, SHA: "sha" + itoa(n), Command: "cmd" + itoa(n%3), Finding: "f" + itoa(n%4),
			Status: statuses[int(data[3])%len(statuses)], Reason: "why", BaseBranch: "ticket/2", Round: n % 5})
	}
	return evs
}

// FuzzFoldRun: no ledger's events, in any order and naming any ticket,
// panic the fold or anything that reads it (status, its text and JSON,
// what remains, the stack's tip and layers).
func FuzzFoldRun(f *testing.F) {
	f.Add([]byte{14, 0, 1, 0})                                       // stacked at ticket 0
	f.Add([]byte{23, 0, 1, 0, 24, 0, 9, 0, 25, 0, 1, 0})             // integration steps before integrating
	f.Add([]byte{1, 1, 0, 0, 11, 1, 1, 0, 15, 1, 7, 0, 20, 0, 0, 6}) // a ticket published, finalized
	f.Add([]byte{1, 3, 0, 0, 17, 3, 0, 8, 15, 3, 7, 0})              // an unplanned ticket
	f.Fuzz(func(t *testing.T, data []byte) {
		d := runDoc(fuzzEvents(data)...)
		d.Header.StackMode = ModeNative
		d.Header.Reviewer = "r"
		s := FoldRun(d)
		s.Tip(d.Header)
		s.layerPRs()
		Remains(d.Header, s)
		st := StatusOf(d)
		if err := st.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(st); err != nil {
			t.Fatal(err)
		}
	})
}
