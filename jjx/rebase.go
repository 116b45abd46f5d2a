package jjx

import "context"

// RebaseSource moves the revisions of source and their descendants onto
// dest (`jj rebase -s SOURCE -d DEST`). A rebase that conflicts succeeds:
// jj records the conflicts in the rebased revisions, which
// ConflictedRevisions finds.
func (r *Repo) RebaseSource(ctx context.Context, source, dest string) error {
	_, err := r.call(ctx, "rebase", "-s", source, "-d", dest)
	return err
}
