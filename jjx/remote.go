package jjx

import (
	"context"
	"strings"
)

// GitRemotes lists the repository's git remotes: name → URL.
func (r *Repo) GitRemotes(ctx context.Context) (map[string]string, error) {
	out, err := r.callRead(ctx, "git", "remote", "list")
	if err != nil {
		return nil, err
	}
	res := map[string]string{}
	for _, l := range lines(out) {
		name, url, ok := strings.Cut(l, " ")
		if ok {
			res[name] = strings.TrimSpace(url)
		}
	}
	return res, nil
}
