package engine

import (
	"strings"
	"testing"
)

// TestRemoteLogEndSurvivesResume: the last line of a failed run's job log
// is in the ledger, so a later process that takes the run up (a resume)
// names it in the task's error as the process that followed the run did.
func TestRemoteLogEndSurvivesResume(t *testing.T) {
	events := []Payload{
		RemoteDispatching{Job: "r/1-1", Commit: "base"},
		RemoteDispatched{RunID: 7, URL: "https://example.invalid/runs/7"},
		RemoteFinished{RunID: 7, Conclusion: "failure", LogEnd: "worker: out of disk"},
	}
	var run *RemoteRun
	for _, p := range events {
		// Through the ledger's codec, as a resume reads them.
		e := runVocab().load(runVocab().store(Event{Task: 1, Role: "implementer", Payload: p}))
		run = FoldRemote(run, e.Payload)
	}
	if run == nil || run.LogEnd != "worker: out of disk" {
		t.Fatalf("folded run %+v: LogEnd lost", run)
	}
	res := RemoteJob{Label: "task 1"}.take(t.Context(), Job{}, *run)
	if res.Err == nil || !strings.Contains(res.Err.Error(), `its log ends: "worker: out of disk"`) {
		t.Errorf("take of a resumed failed run: %v; want the log's last line named", res.Err)
	}
	for _, p := range run.TakeUp() {
		if f, ok := p.(RemoteFinished); ok && f.LogEnd != run.LogEnd {
			t.Errorf("TakeUp's RemoteFinished has LogEnd %q, want %q", f.LogEnd, run.LogEnd)
		}
	}
}
