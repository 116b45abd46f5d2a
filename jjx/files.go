package jjx

import (
	"context"
	"encoding/json"
	"fmt"
)

// FileList returns every path in rev's tree, without snapshotting.
func (r *Repo) FileList(ctx context.Context, rev string) ([]string, error) {
	out, err := r.callRead(ctx, "file", "list", "-r", rev, "-T", `json(path) ++ "\n"`)
	if err != nil {
		return nil, err
	}
	ls := lines(out)
	res := make([]string, 0, len(ls))
	for _, l := range ls {
		var p string
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			return nil, fmt.Errorf("decode jj path %q: %w", l, err)
		}
		res = append(res, p)
	}
	return res, nil
}
