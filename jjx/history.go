package jjx

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Added is one revision of ::@ that added files under a prefix: its
// commit, its parents' commits and the repository paths it added (copies
// and renames count as adding their target; From names a rename's
// source).
type Added struct {
	CommitID string
	Parents  []string
	Paths    []string
	// From maps each renamed path of Paths to the path it was renamed
	// from (jj's rename detection), to follow a moved file back.
	From map[string]string
}

// AddedUnder returns, newest first, the revisions of ::@ that touch files
// under the repository directory dir and the paths each added there, in
// one jj call (which snapshots the working copy, so @ holds what is on
// disk). The earliest revision that added a path is the last one naming it.
func (r *Repo) AddedUnder(ctx context.Context, dir string) ([]Added, error) {
	fileset := "root:" + Quote(dir)
	tmpl := `commit_id ++ "\t" ++ parents.map(|p| p.commit_id()).join(",") ++ "\t" ++ self.diff(` + Quote(fileset) +
		`).files().filter(|f| f.status() == "added" || f.status() == "copied" || f.status() == "renamed").map(|f| ` +
		`if(f.status() == "renamed", "[" ++ json(f.path()) ++ "," ++ json(f.source().path()) ++ "]", json(f.path()))).join("\t") ++ "\n"`
	out, err := r.call(ctx, "log", "--no-graph", "-r", "::@ & files("+fileset+")", "-T", tmpl)
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
			if strings.HasPrefix(q, "[") {
				// A rename: [path, source].
				var ps []string
				if err := json.Unmarshal([]byte(q), &ps); err != nil || len(ps) != 2 {
					return nil, fmt.Errorf("decode jj renamed path %q: %v", q, err)
				}
				if a.From == nil {
					a.From = map[string]string{}
				}
				a.Paths = append(a.Paths, ps[0])
				a.From[ps[0]] = ps[1]
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

// Toucher is a revision that changed some of the paths asked about.
type Toucher struct {
	CommitID, ChangeID, Description string
	Paths                           []string
}

// Touching returns, newest first, the revisions of ::@ that changed any
// of the repository paths ps, with the ones of ps each changed, in one jj
// call.
func (r *Repo) Touching(ctx context.Context, ps []string) ([]Toucher, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	sets := make([]string, len(ps))
	for i, p := range ps {
		sets[i] = rootFile(p)
	}
	fileset := strings.Join(sets, " | ")
	tmpl := `commit_id ++ "\t" ++ change_id ++ "\t" ++ json(description.first_line()) ++ "\t" ++ self.diff(` + Quote(fileset) +
		`).files().map(|f| json(f.path())).join("\t") ++ "\n"`
	out, err := r.call(ctx, "log", "--no-graph", "-r", "::@ & files("+fileset+")", "-T", tmpl)
	if err != nil {
		return nil, err
	}
	var res []Toucher
	for _, l := range lines(out) {
		f := strings.Split(l, "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("decode jj log line %q", l)
		}
		t := Toucher{CommitID: f[0], ChangeID: f[1]}
		if err := json.Unmarshal([]byte(f[2]), &t.Description); err != nil {
			return nil, fmt.Errorf("decode jj description %q: %w", f[2], err)
		}
		for _, q := range f[3:] {
			var p string
			if q != "" && json.Unmarshal([]byte(q), &p) == nil {
				t.Paths = append(t.Paths, p)
			}
		}
		res = append(res, t)
	}
	return res, nil
}

// WorkingCopy returns @ after snapshotting the working copy.
func (r *Repo) WorkingCopy(ctx context.Context) (Commit, error) {
	return r.One(ctx, "@")
}

// Touches reports whether the revision with commit ID rev changed any of
// the repository paths ps (against its parents), without snapshotting.
func (r *Repo) Touches(ctx context.Context, rev string, ps []string) (bool, error) {
	sets := make([]string, len(ps))
	for i, p := range ps {
		sets[i] = rootFile(p)
	}
	out, err := r.callRead(ctx, "log", "--no-graph", "-r", rev+" & files("+strings.Join(sets, " | ")+")", "-T", `commit_id ++ "\n"`)
	if err != nil {
		return false, err
	}
	return len(lines(out)) > 0, nil
}
