package specwrite

import (
	"errors"
	"fmt"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec/drift"
)

// TestClassifyDrift: spec/drift's policy errors carry no exit code of
// their own; archive's refusal is exit 6 and the merge forward's halt
// exit 4, wrapped or not, with the message unchanged.
func TestClassifyDrift(t *testing.T) {
	tests := []struct {
		err  error
		want exitcode.Code
	}{
		{&drift.RefusedError{Msg: "refused"}, exitcode.Invalid},
		{&drift.HaltError{Msg: "halted"}, exitcode.Conflicts},
		{fmt.Errorf("sync: %w", &drift.HaltError{Msg: "halted"}), exitcode.Conflicts},
		{errors.New("read history"), exitcode.Failure},
	}
	for _, tt := range tests {
		got := Classify(tt.err)
		if exitcode.Of(got) != tt.want || got.Error() != tt.err.Error() {
			t.Errorf("Classify(%v) = %v (exit %d), want exit %d and the same message", tt.err, got, exitcode.Of(got), tt.want)
		}
	}
}
