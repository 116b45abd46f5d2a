package stack

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/run-status.json from the current code")

// TestRunLedgerStillReads: a run ledger as gh-specstack wrote it before
// its JSON names became snake_case (testdata/run-ledger.toml, a finished
// sequential run of stack_run.txtar; its TOML keys never changed) still
// reads, and `gh specstack status --json` of it prints the snake_case
// document of testdata/run-status.json.
func TestRunLedgerStillReads(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "run-ledger.toml"))
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
