package jjx

import (
	"context"
	"encoding/json"
	"fmt"
)

// ConflictedRevisions returns the conflicted revisions within revset,
// newest first. revset is jj's -r argument as given (never pasted into a
// larger expression); the template keeps the conflicted revisions.
func (r *Repo) ConflictedRevisions(ctx context.Context, revset string) ([]Commit, error) {
	return r.logWith(ctx, revset, "if(conflict, "+logTemplate+")")
}

// ConflictedFiles returns the paths that are conflicted in rev's tree.
func (r *Repo) ConflictedFiles(ctx context.Context, rev string) ([]string, error) {
	out, err := r.call(ctx, "file", "list", "-r", rev, "-T", `if(conflict, json(path) ++ "\n")`)
	if err != nil {
		return nil, err
	}
	var res []string
	for _, l := range lines(out) {
		var p string
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			return nil, fmt.Errorf("decode jj path %q: %w", l, err)
		}
		res = append(res, p)
	}
	return res, nil
}
