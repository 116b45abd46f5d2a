package jjx

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
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

// WrittenOn returns, for each revision of paths (commit ids) and each
// of its paths, the parents of the oldest entry of that revision's
// evolution log (jj evolog) that added the path compared with the entry
// before: the commits the file was first written against. A rebase
// evolves a revision without touching its files, so a file written on
// one trunk commit and rebased onto a later one is reported written on
// the first, edits made after the rebase included (a typo fixed must not
// make the rebase's parent the base; an author who took the new parent's
// text in merges cleanly). Paths (repository-relative, slash separated)
// never added in their revision's evolution are absent. One jj call for
// all the revisions.
func (r *Repo) WrittenOn(ctx context.Context, paths map[string][]string) (map[string]map[string][]string, error) {
	res := map[string]map[string][]string{}
	if len(paths) == 0 {
		return res, nil
	}
	var revs []string
	for rev := range paths {
		revs = append(revs, rev)
	}
	sort.Strings(revs)
	ids := make([]string, len(revs))
	for i, rev := range revs {
		ids[i] = ID(rev)
	}
	// Each entry's line (change, commit, parents), then its --summary
	// lines ("A path", "M path", relative to the repository root, where
	// jj runs). A change's entries come newest first; the changes'
	// entries interleave.
	out, err := r.callRead(ctx, "evolog", "-r", strings.Join(ids, " | "), "--no-graph", "--summary",
		"-T", `"\x01" ++ commit.change_id() ++ "\t" ++ commit.commit_id() ++ "\t" ++ commit.parents().map(|p| p.commit_id()).join(",") ++ "\n"`)
	if err != nil {
		return nil, err
	}
	type entry struct {
		change, commit string
		parents        []string
	}
	var es []entry
	var sums [][]string
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "\x01"); ok {
			f := strings.Split(rest, "\t")
			if len(f) != 3 {
				return nil, fmt.Errorf("decode jj evolog line %q", rest)
			}
			e := entry{change: f[0], commit: f[1]}
			if f[2] != "" {
				e.parents = strings.Split(f[2], ",")
			}
			es = append(es, e)
			sums = append(sums, nil)
			continue
		}
		if len(es) > 0 && l != "" {
			sums[len(sums)-1] = append(sums[len(sums)-1], l)
		}
	}
	// The revision each change is: its entry whose commit is the revision.
	revOf := map[string]string{}
	for _, e := range es {
		if _, ok := paths[e.commit]; ok {
			revOf[e.change] = e.commit
		}
	}
	for i, e := range es {
		rev, ok := revOf[e.change]
		if !ok {
			continue
		}
		for _, l := range sums[i] {
			kind, path, ok := strings.Cut(l, " ")
			if !ok || kind != "A" || !slices.Contains(paths[rev], path) {
				continue
			}
			if res[rev] == nil {
				res[rev] = map[string][]string{}
			}
			res[rev][path] = e.parents // entries run newest first: the oldest wins
		}
	}
	return res, nil
}
