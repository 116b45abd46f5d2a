package stack

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger/ledgertest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/run-status.json from the current code")

// TestRunLedgerStillReads: a run ledger as gh-specstack wrote it before
// its JSON names became snake_case (testdata/ledgers/sequential.toml, a finished
// sequential run of stack_run.txtar; its TOML keys never changed) still
// reads, and `gh specstack status --json` of it prints the snake_case
// document of testdata/run-status.json.
func TestRunLedgerStillReads(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "ledgers", "sequential.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(RunLedgerPath(dir), data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, ok, err := ReadRun(dir)
	if err != nil || !ok {
		t.Fatalf("ReadRun: ok=%v, %v", ok, err)
	}
	got, err := json.MarshalIndent(StatusOf(doc), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "run-status.json")
	if *updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("status of the old ledger differs from %s (go test -run TestRunLedgerStillReads -update rewrites it):\n%s", golden, got)
	}
}

// The ledgers under testdata/ledgers were written by real runs (the
// stack_run* e2e scripts, kept with -testwork) of the release before the
// run's events became the engine's, and actions.toml of the one that
// added --executor: every kind there decodes into its payload type, and
// re-encoding gives the same bytes, so a ledger written now is one those
// releases read, and the other way round.
func TestRunLedgerRoundTrip(t *testing.T) {
	seen := ledgertest.RoundTrip[RunHeader](t, filepath.Join("testdata", "ledgers", "*.toml"), func(e engine.RunEvent) (string, bool) {
		_, unknown := e.Payload.(engine.Unknown)
		return e.Kind(), !unknown
	})
	// integration-stacked needs a native stack with an integration pull
	// request, which no script makes; TestEventCodecEveryField covers it.
	for _, p := range fuzzPayloads {
		k := p(1, "").Kind()
		if !seen[k] && k != engine.EvIntegrationStacked && k != "unknown" {
			t.Errorf("no golden ledger holds a %q event", k)
		}
	}
}
