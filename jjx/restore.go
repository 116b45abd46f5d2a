package jjx

import "context"

// RestoreDir makes the files under the repository directory dir in
// revision into what they are in revision from (jj restore --from
// --into), leaving every other path alone.
func (r *Repo) RestoreDir(ctx context.Context, from, into, dir string) error {
	_, err := r.call(ctx, "restore", "--from", from, "--into", into, "root:"+Quote(dir))
	return err
}

// Restore makes revision into's tree that of revision from (jj restore
// --from --into, every path).
func (r *Repo) Restore(ctx context.Context, from, into string) error {
	_, err := r.call(ctx, "restore", "--from", from, "--into", into)
	return err
}
