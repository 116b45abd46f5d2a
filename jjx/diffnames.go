package jjx

import (
	"context"
	"strings"
)

// ChangedPaths lists the paths whose content differs between the
// revisions from and to (`jj diff --from --to --name-only`). Run on a
// workspace's Repo it snapshots that workspace's working copy first, so
// edits not yet seen by jj count.
func (r *Repo) ChangedPaths(ctx context.Context, from, to string) ([]string, error) {
	out, err := r.call(ctx, "diff", "--from", from, "--to", to, "--name-only")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range lines(out) {
		if l = strings.TrimSpace(l); l != "" {
			paths = append(paths, l)
		}
	}
	return paths, nil
}

// DiffGit is the git-format diff between the revisions from and to.
func (r *Repo) DiffGit(ctx context.Context, from, to string) ([]byte, error) {
	return r.call(ctx, "diff", "--git", "--from", from, "--to", to)
}

// DiffGitOf is the git-format diff of the changes of revset.
func (r *Repo) DiffGitOf(ctx context.Context, revset string) ([]byte, error) {
	return r.call(ctx, "diff", "--git", "-r", revset)
}
