package stackcli

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// TestGitHubExit: each error of ghapi's resolution, as stack.Connect and
// loadSettings return it, exits with the code the table gives it; other
// errors keep theirs.
func TestGitHubExit(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want exitcode.Code
	}{
		{"nil", nil, exitcode.OK},
		{"no repository", &ghapi.RepoError{}, exitcode.Usage},
		{"GH_REPO", fmt.Errorf("connect: %w", &ghapi.RepoError{GHRepo: "x", Err: errors.New("bad")}), exitcode.Usage},
		{"bad setting", &ghapi.SettingError{Name: ghapi.TimeoutEnv, Value: "x", Err: errors.New("bad")}, exitcode.Usage},
		{"no token", &ghapi.TokenError{Host: "github.com"}, exitcode.Missing},
		{"token search cut short", &ghapi.TokenError{Host: "github.com", Err: context.Canceled}, exitcode.Interrupted},
		{"another code", exitcode.New(exitcode.Missing, "no git"), exitcode.Missing},
		{"plain", errors.New("boom"), exitcode.Failure},
	}
	for _, tt := range tests {
		got := githubExit(tt.err)
		if code := exitcode.Of(got); code != tt.want || !errors.Is(got, tt.err) {
			t.Errorf("%s: githubExit(%v) = %v (code %d), want code %d wrapping it", tt.name, tt.err, got, code, tt.want)
		}
	}
}
