package version

import (
	"errors"
	"testing"
)

// TestToolErrorMessages: a tool too old names its version, where it is
// and how to get a supported one; an unread version says why.
func TestToolErrorMessages(t *testing.T) {
	old := &ToolError{Tool: "git", Bin: "/usr/bin/git", Version: "2.20.1", Hint: "install git >= 2.30.0"}
	if got, want := old.Error(), "git 2.20.1 at /usr/bin/git is too old: install git >= 2.30.0"; got != want {
		t.Errorf("too old: %q, want %q", got, want)
	}
	cause := errors.New("jj --version: exit status 1")
	unread := &ToolError{Tool: "jj", Bin: "/bin/jj", Hint: "install jj", Err: cause}
	if unread.Error() != cause.Error() || !errors.Is(unread, cause) {
		t.Errorf("unread: %q, want %q wrapping it", unread, cause)
	}
}
