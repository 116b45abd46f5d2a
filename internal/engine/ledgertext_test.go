package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

// TestLedgerText: a value the ledger keeps as text must be UTF-8, or the
// run is refused (exit 2) before anything is recorded, naming it.
func TestLedgerText(t *testing.T) {
	if err := ledgerText("--worker", "claude -p 'ünïcode'", "--test", ""); err != nil {
		t.Errorf("UTF-8 values: %v", err)
	}
	err := ledgerText("--worker", "ok", "--test", "make \xff")
	var ec *exitcode.Error
	if !errors.As(err, &ec) || ec.Code != exitcode.Usage || !strings.Contains(err.Error(), `--test "make \xff" is not valid UTF-8`) {
		t.Errorf("a --test of invalid UTF-8: %v, want a usage error naming it", err)
	}
}
