package engine

import "testing"

// A runner whose caller named no verbs speaks jj-kaisen's; one that did
// speaks its caller's (jj openspec apply's halts must not say jj kaisen).
func TestRunnerCommands(t *testing.T) {
	var r Runner
	if got := r.commands(); got != KaisenCommands {
		t.Errorf("unset: %+v, want jj-kaisen's", got)
	}
	if got, want := r.gateHint(), "`jj kaisen gate` or `jj kaisen resume`"; got != want {
		t.Errorf("kaisen gate hint %q, want %q", got, want)
	}
	r.Commands = Commands{Resume: "jj openspec apply c", Abort: "jj openspec apply --abort", Status: "jj openspec apply --status"}
	if got := r.commands(); got != r.Commands {
		t.Errorf("set: %+v", got)
	}
	if got, want := r.gateHint(), "`jj openspec apply c`"; got != want {
		t.Errorf("apply gate hint %q, want %q", got, want)
	}
}
