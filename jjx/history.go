package jjx

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Added is one revision of ::@ that added files under a prefix: its
// commit, its parents' commits and the repository paths it added (copies
// and renames count as adding their target).
type Added struct {
	CommitID string
	Parents  []string
	Paths    []string
}

// AddedUnder returns, newest first, the revisions of ::@ that touch files
// under the repository directory dir and the paths each added there, in
// one jj call (which snapshots the working copy, so @ holds what is on
// disk). The earliest revision that added a path is the last one naming it.
func (r *Repo) AddedUnder(ctx context.Context, dir string) ([]Added, error) {
	fileset := "root:" + Quote(dir)
	tmpl := `commit_id ++ "\t" ++ parents.map(|p| p.commit_id()).join(",") ++ "\t" ++ self.diff(` + Quote(fileset) +
		`).files().filter(|f| f.status() == "added" || f.status() == "copied" || f.status() == "renamed").map(|f| json(f.path())).join("\t") ++ "\n"`
	out, err := r.Run(ctx, "log", "--no-graph", "-r", "::@ & files("+fileset+")", "-T", tmpl)
	if err != nil {
		return nil, err
	}
	var res []Added
	for _, l := range lines(out) {
		f := strings.Split(l, "\t")
		if len(f) < 2 {
			return nil, fmt.Errorf("decode jj added files %q", l)
		}
		a := Added{CommitID: f[0]}
		if f[1] != "" {
			a.Parents = strings.Split(f[1], ",")
		}
		for _, q := range f[2:] {
			if q == "" {
				continue
			}
			var p string
			if err := json.Unmarshal([]byte(q), &p); err != nil {
				return nil, fmt.Errorf("decode jj path %q: %w", q, err)
			}
			a.Paths = append(a.Paths, p)
		}
		res = append(res, a)
	}
	return res, nil
}

// Touching returns the revisions of (from..@) that changed the repository
// path p, newest first; from is a commit ID.
func (r *Repo) Touching(ctx context.Context, from, p string) ([]Commit, error) {
	rev := "::@ & files(" + rootFile(p) + ")"
	if from != "" {
		rev = "(" + from + "..@) & files(" + rootFile(p) + ")"
	}
	return r.Log(ctx, rev)
}

// WorkingCopy returns @ after snapshotting the working copy.
func (r *Repo) WorkingCopy(ctx context.Context) (Commit, error) {
	return r.One(ctx, "@")
}
