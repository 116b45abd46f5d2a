package jjx

import (
	"context"
	"strings"
)

// GitRoot returns the git repository backing the jj repository
// (`jj git root`): .jj/repo/store/git, or the work tree's .git when
// colocated.
func (r *Repo) GitRoot(ctx context.Context) (string, error) {
	out, err := r.callRead(ctx, "git", "root")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// GitImport imports the backing git repository's refs into jj.
func (r *Repo) GitImport(ctx context.Context) error {
	_, err := r.call(ctx, "git", "import")
	return err
}
