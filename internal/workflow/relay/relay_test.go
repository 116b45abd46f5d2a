package relay

import (
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestRelayChange(t *testing.T) {
	tests := []struct {
		arg, change, idea string
		code              exitcode.Code
	}{
		{arg: "add-export", change: "add-export"},
		{arg: " add-export ", change: "add-export"},
		{arg: "Add a CSV export", change: "add-a-csv-export", idea: "Add a CSV export"},
		{arg: "AddExport", change: "addexport", idea: "AddExport"},
		{arg: "fix: the login/logout flow!", change: "fix-the-login-logout-flow", idea: "fix: the login/logout flow!"},
		{arg: "", code: exitcode.Usage},
		{arg: "   ", code: exitcode.Usage},
		{arg: "!!!", code: exitcode.Usage},
		{arg: "Archive", code: exitcode.Usage},
		{arg: ".hidden", code: exitcode.Usage},
	}
	for _, tt := range tests {
		change, idea, err := RelayChange(tt.arg)
		if got := exitcode.Of(err); got != tt.code {
			t.Errorf("RelayChange(%q): exit %d (%v), want %d", tt.arg, got, err, tt.code)
			continue
		}
		if change != tt.change || idea != tt.idea {
			t.Errorf("RelayChange(%q) = %q, %q; want %q, %q", tt.arg, change, idea, tt.change, tt.idea)
		}
	}
}

func TestRelaysReadBack(t *testing.T) {
	dir := t.TempDir()
	if rs, err := Relays(dir); err != nil || len(rs) != 0 {
		t.Fatalf("Relays of an empty ledger = %v, %v; want none", rs, err)
	}
	for _, c := range []string{"b-change", "a-change"} {
		if err := writeRelay(dir, &RelayRecord{Change: c, State: RelayParked, Revision: "abc"}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Relays(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Change != "a-change" || rs[1].Change != "b-change" || rs[0].State != RelayParked || rs[0].Revision != "abc" {
		t.Fatalf("Relays = %+v %+v; want a-change then b-change, parked at abc", rs[0], rs[1])
	}
	if _, err := gated(dir, "missing", "go"); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("gated of a missing relay: %v, want exit 2", err)
	}
}

// Relay records are listed by project.LedgerNames: records written read
// back, in name order.
func TestRelaysListed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []string{"zeta", "alpha"} {
		if err := writeRelay(dir, &RelayRecord{Change: c, State: RelayParked}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Relays(dir)
	if err != nil || len(rs) != 2 || rs[0].Change != "alpha" || rs[1].Change != "zeta" {
		t.Errorf("Relays = %v, %v; want alpha, zeta", rs, err)
	}
}
