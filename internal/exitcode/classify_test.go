package exitcode

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/version"
	"github.com/specstack/specstack/jjx"
)

// TestOfClassifiesLowerLayers: each lower layer's error, as returned and
// wrapped further up, exits with the code the table gives it; an outer
// *Error overrides what it wraps; anything else is a failure.
func TestOfClassifiesLowerLayers(t *testing.T) {
	cause := errors.New("exit status 128")
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, OK},
		{"plain", errors.New("boom"), Failure},
		{"attached", New(GateFailed, "red"), GateFailed},
		{"jj not found", fmt.Errorf("%w: install jj", jjx.ErrNotFound), Missing},
		{"jj too old", &version.ToolError{Tool: "jj", Bin: "/bin/jj", Version: "0.1.0"}, Missing},
		{"jj version unread", &version.ToolError{Tool: "jj", Bin: "/bin/jj", Err: cause}, Missing},
		{"not a jj workspace", fmt.Errorf("/x is %w: %w", jjx.ErrNotWorkspace, cause), Missing},
		{"bad revset", &jjx.RevsetError{Revset: "@)", Message: "parse error"}, Usage},
		{"git not found", fmt.Errorf("%w: install git", gitx.ErrNotFound), Missing},
		{"git too old", &version.ToolError{Tool: "git", Bin: "/bin/git", Version: "2.1.0"}, Missing},
		{"not a git repository", &gitx.NotRepositoryError{Dir: "/x", Err: cause}, Missing},
		{"push of no commit", &gitx.RevisionError{Branch: "b", Err: gitx.ErrNoCommit}, Usage},
		{"remote moved", fmt.Errorf("push b: branch %w", gitx.ErrRemoteMoved), Failure},
		{"rebase conflicts", &gitx.RebaseConflictError{Branch: "b", Onto: "main", Err: cause}, Conflicts},
		{"locked", &ledger.LockedError{Dir: "/l", Holder: ledger.Holder{PID: 7}}, Locked},
		{"escape", &confine.EscapeError{Root: "/r", Path: "a", Link: "a"}, Invalid},
		{"not regular", &confine.NotRegularError{Path: "a", Mode: fs.ModeDir}, Invalid},
		{"wrapped twice", fmt.Errorf("apply: %w", fmt.Errorf("lock: %w", &ledger.LockedError{Dir: "/l"})), Locked},
		{"joined", errors.Join(errors.New("first"), &confine.EscapeError{Root: "/r", Path: "a", Link: ".."}), Invalid},
		{"outer code wins", Wrap(Failure, &ledger.LockedError{Dir: "/l"}), Failure},
		{"first of two wrapped wins", fmt.Errorf("%w: %w", &jjx.RevsetError{Revset: "x"}, New(Invalid, "inner")), Usage},
	}
	for _, tt := range tests {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("%s: Of(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}
