package stack

import (
	"encoding/json"
	"github.com/specstack/specstack/internal/engine"
	"io"
	"testing"
)

// fuzzPayloads make every payload a run records, from a number and a
// status, and one it never does.
var fuzzPayloads = []func(n int, st string) engine.Payload{
	func(n int, st string) engine.Payload {
		return engine.CommandBaselined{Command: "cmd" + itoa(n%3), ExitCode: n}
	},
	func(n int, st string) engine.Payload {
		return engine.Cut{Base: "sha" + itoa(n), BaseBranch: "ticket/2"}
	},
	func(n int, st string) engine.Payload { return engine.Worked{ExitCode: n, Round: n % 5} },
	func(n int, st string) engine.Payload { return engine.DecisionsNoted{Text: "why"} },
	func(n int, st string) engine.Payload { return engine.TicketCollected{SHA: "sha" + itoa(n)} },
	func(n int, st string) engine.Payload {
		return engine.TicketReceipt{Command: "cmd" + itoa(n%3), ExitCode: n, SHA: "sha" + itoa(n), Status: st}
	},
	func(n int, st string) engine.Payload {
		return engine.RoundReviewed{Round: n % 5, Status: st, Findings: n}
	},
	func(n int, st string) engine.Payload {
		return engine.VerdictGiven{Round: n % 5, Status: st, Finding: "f" + itoa(n%4), Reason: "why"}
	},
	func(n int, st string) engine.Payload {
		return engine.FindingDropped{Round: n % 5, Finding: "f" + itoa(n%4)}
	},
	func(n int, st string) engine.Payload { return engine.FindingUnresolved{Finding: "f" + itoa(n%4)} },
	func(n int, st string) engine.Payload {
		return engine.Rebased{Base: "sha" + itoa(n), BaseBranch: "ticket/2", SHA: "sha" + itoa(n)}
	},
	func(n int, st string) engine.Payload {
		return engine.Publishing{SHA: "sha" + itoa(n), BaseBranch: "ticket/2"}
	},
	func(n int, st string) engine.Payload { return engine.TicketPushed{SHA: "sha" + itoa(n)} },
	func(n int, st string) engine.Payload { return engine.TicketPR{Number: n, URL: "u"} },
	func(n int, st string) engine.Payload { return engine.Stacked{Stack: n} },
	func(n int, st string) engine.Payload { return engine.Published{SHA: "sha" + itoa(n), Number: n} },
	func(n int, st string) engine.Payload { return engine.Subsumed{} },
	func(n int, st string) engine.Payload { return engine.Halted{Status: st, Reason: "why"} },
	func(n int, st string) engine.Payload { return engine.Resumed{} },
	func(n int, st string) engine.Payload { return engine.Ready{Number: n} },
	func(n int, st string) engine.Payload { return engine.Finalized{Status: st} },
	func(n int, st string) engine.Payload { return engine.StackReviewed{Status: st, Findings: n} },
	func(n int, st string) engine.Payload {
		return engine.Integrating{Branch: "cmd" + itoa(n%3), SHA: "sha" + itoa(n), BaseBranch: "ticket/2"}
	},
	func(n int, st string) engine.Payload { return engine.IntegrationPushed{SHA: "sha" + itoa(n)} },
	func(n int, st string) engine.Payload { return engine.IntegrationPR{Number: n} },
	func(n int, st string) engine.Payload { return engine.IntegrationStacked{Stack: n} },
	func(n int, st string) engine.Payload { return engine.PriorFinished{Evidence: "why"} },
	func(n int, st string) engine.Payload { return engine.PriorGraphed{} },
	func(n int, st string) engine.Payload { return engine.PriorPushed{SHA: "sha" + itoa(n)} },
	func(n int, st string) engine.Payload { return engine.PriorPR{Number: n} },
	func(n int, st string) engine.Payload {
		return engine.RemoteDispatching{Job: "r/" + itoa(n), Commit: "sha" + itoa(n)}
	},
	func(n int, st string) engine.Payload { return engine.RemoteDispatched{RunID: int64(n), URL: "u"} },
	func(n int, st string) engine.Payload {
		return engine.RemoteFinished{RunID: int64(n), Conclusion: st, Commit: "sha" + itoa(n)}
	},
	func(n int, st string) engine.Payload { return engine.RemoteSettled{} },
	func(n int, st string) engine.Payload { return engine.Unknown{Name: "unknown"} },
}

// fuzzEvents reads events from data, four bytes each: the payload, the
// ticket (0, a planned one, or one the header does not plan), a number
// for the PR and stack, and a status.
func fuzzEvents(data []byte) []engine.Event {
	tickets := []int{0, 2, 3, 99}
	statuses := []string{"", "passed", "failed", "waived", "rejected", "none", "complete", "open", engine.StateFailed}
	var evs []engine.Event
	for ; len(data) >= 4; data = data[4:] {
		n := int(data[2])
		p := fuzzPayloads[int(data[0])%len(fuzzPayloads)](n, statuses[int(data[3])%len(statuses)])
		evs = append(evs, at(tickets[int(data[1])%len(tickets)], p))
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
		s := foldRun(d)
		tipOf(s, d.Header)
		layerPRs(s)
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
