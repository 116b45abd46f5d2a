// Package gitx is specstack's git layer: reads (revisions, commits, refs,
// ancestry, merge bases, files at a revision, a local origin's branches)
// in process through go-git; worktrees, rebase, fetch, the history walks
// and a publish-once push through the git CLI (see store.go for why each
// stays there).
package gitx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/version"
	"github.com/specstack/specstack/internal/xec"
)

// MinVersion is the oldest git specstack supports.
const MinVersion = "2.30.0"

// ErrNotFound reports that git is not on PATH.
var ErrNotFound = errors.New("git not found on PATH")

// Find locates git and returns its version ("2.39.5"). No git on PATH is
// ErrNotFound; one whose version is unreadable or too old is a
// *version.ToolError.
func Find(ctx context.Context) (string, string, error) {
	bin, err := xec.LookPath("git")
	if err != nil {
		return "", "", fmt.Errorf("%w: install git >= %s", ErrNotFound, MinVersion)
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: bin, Args: []string{"--version"}, Timeout: ReadTimeout})
	if err != nil {
		return bin, "", unusable(bin, "", fmt.Errorf("git --version: %w", err))
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return bin, "", unusable(bin, "", fmt.Errorf("git --version printed %q", out))
	}
	v := f[2]
	have, err := version.Parse(v)
	if err != nil {
		return bin, v, unusable(bin, v, err)
	}
	minV, _ := version.Parse(MinVersion)
	if have.Less(minV) {
		return bin, v, unusable(bin, v, nil)
	}
	return bin, v, nil
}

// SupportsColocatedWorkspaces reports whether git version v is new enough
// for jj's colocated workspaces (2.42).
func SupportsColocatedWorkspaces(v string) bool {
	have, err := version.Parse(v)
	if err != nil {
		return false
	}
	return !have.Less(version.V{Major: 2, Minor: 42})
}

// unusable is the refusal of the git at bin: too old, or (err) its
// version unread.
func unusable(bin, v string, err error) error {
	return &version.ToolError{Tool: "git", Bin: bin, Version: v, Hint: "install git >= " + MinVersion, Err: err}
}
