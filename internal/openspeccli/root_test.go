package openspeccli

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		code exitcode.Code
	}{
		{fmt.Errorf("change %q: %w", "x", spec.ErrChangeNotFound), exitcode.Usage},
		{fmt.Errorf("x: %w", spec.ErrInvalid), exitcode.Invalid},
		{fmt.Errorf("change x, spec y: %w", &spec.MergeError{Capability: "y", Msg: "y MODIFIED failed"}), exitcode.Invalid},
		{fmt.Errorf("x (%w)", spec.ErrIncomplete), exitcode.NeedsChoice},
		{fmt.Errorf("task: %w", spec.ErrTaskNotFound), exitcode.Usage},
		{fmt.Errorf("x: %w", spec.ErrArchiveExists), exitcode.Failure},
		{fmt.Errorf("list: %w", &regfile.Error{Path: "tasks.md", Mode: fs.ModeNamedPipe}), exitcode.Invalid},
		{errors.New("disk full"), exitcode.Failure},
	}
	for _, tt := range tests {
		if got := exitcode.Of(classify(tt.err)); got != tt.code {
			t.Errorf("classify(%v) exits %d, want %d", tt.err, got, tt.code)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
}
