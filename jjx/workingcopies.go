package jjx

import (
	"context"
	"strings"
)

// WorkingCopy is a workspace's working-copy commit as the repository
// records it.
type WorkingCopy struct {
	Commit
	ParentChangeIDs []string
}

const workingCopyTemplate = `"{\"c\":" ++ json(self) ++ ",\"wc\":" ++ json(working_copies) ++
	",\"pc\":[" ++ parents.map(|p| json(p.change_id())).join(",") ++ "]}\n"`

// WorkingCopies reads the working-copy commits of the named workspaces
// in one `jj log` over `present("name")@|…` (each name a quoted string,
// never pasted text), without snapshotting any working copy: what jj
// last recorded of each. Names jj does not know are missing from the
// answer.
func (r *Repo) WorkingCopies(ctx context.Context, names []string) (map[string]WorkingCopy, error) {
	res := map[string]WorkingCopy{}
	if len(names) == 0 {
		return res, nil
	}
	terms := make([]string, len(names))
	for i, n := range names {
		terms[i] = "present(" + Quote(n) + "@)"
	}
	out, err := r.callRead(ctx, "log", "--no-graph", "-r", strings.Join(terms, "|"), "-T", workingCopyTemplate)
	if err != nil {
		return nil, err
	}
	ls, err := decodeLines[struct {
		C  Commit `json:"c"`
		WC []struct {
			Name string `json:"name"`
		} `json:"wc"`
		PC []string `json:"pc"`
	}](out)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, l := range ls {
		for _, w := range l.WC {
			if want[w.Name] {
				res[w.Name] = WorkingCopy{Commit: l.C, ParentChangeIDs: l.PC}
			}
		}
	}
	return res, nil
}
