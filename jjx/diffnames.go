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
	out, err := r.Run(ctx, "diff", "--from", from, "--to", to, "--name-only")
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
