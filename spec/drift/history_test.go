package drift

import (
	"context"
	"strings"
	"testing"
)

// renameHistory is a newest-first history of additions; each rename
// names its source in from.
var renameHistory = []addition{
	{rev: "r6", parents: []string{"r5"}, paths: []string{"c/e/s.md"}, from: map[string]string{"c/e/s.md": "c/d/s.md"}}, // cycle back
	{rev: "r5", parents: []string{"r4"}, paths: []string{"c/d/s.md"}, from: map[string]string{"c/d/s.md": "c/e/s.md"}},
	{rev: "r4", parents: []string{"r3"}, paths: []string{"c/new/s.md"}, from: map[string]string{"c/new/s.md": "c/mid/s.md"}},
	{rev: "r3", parents: []string{"r2"}, paths: []string{"c/mid/s.md", "c/lost/s.md"}, from: map[string]string{"c/mid/s.md": "c/old/s.md", "c/lost/s.md": "c/never/s.md"}},
	{rev: "r2", parents: []string{"r1"}, paths: []string{"c/plain/s.md"}},
	{rev: "r1", parents: []string{"r0"}, paths: []string{"c/old/s.md"}},
}

// TestFollowAdds: the base revision of a path renamed (twice) is the one
// that added the first file; a path never renamed, a source history does
// not hold and a rename cycle keep what they have; one listing per hop.
func TestFollowAdds(t *testing.T) {
	tests := []struct {
		path      string
		rev, par  string
		wantLists int
	}{
		{"c/plain/s.md", "r2", "r1", 1},
		{"c/new/s.md", "r1", "r0", 3},
		{"c/mid/s.md", "r1", "r0", 2},
		{"c/lost/s.md", "r3", "r2", 2},
		{"c/e/s.md", "r5", "r4", 2},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lists := 0
			list := func(_ context.Context, dir string) ([]addition, error) {
				lists++
				var out []addition
				for _, a := range renameHistory {
					var in []string
					for _, p := range a.paths {
						if dir == "." || strings.HasPrefix(p, dir+"/") {
							in = append(in, p)
						}
					}
					if in != nil {
						out = append(out, addition{rev: a.rev, parents: a.parents, paths: in, from: a.from})
					}
				}
				return out, nil
			}
			got, err := followAdds(t.Context(), []string{tt.path}, list, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g := got[tt.path]; g.rev != tt.rev || g.parent != tt.par {
				t.Errorf("followAdds(%s) = %+v, want rev %s parent %s", tt.path, g, tt.rev, tt.par)
			}
			if lists != tt.wantLists {
				t.Errorf("followAdds(%s) listed history %d times, want %d", tt.path, lists, tt.wantLists)
			}
		})
	}
}

// TestFollowAddsRenamesFromAList: renames named by a separate call (git)
// are followed as the list's own (jj).
func TestFollowAddsRenamesFromAList(t *testing.T) {
	list := func(_ context.Context, dir string) ([]addition, error) {
		if dir == "c/new" {
			return []addition{{rev: "r2", parents: []string{"r1"}, paths: []string{"c/new/s.md"}}}, nil
		}
		return []addition{{rev: "r1", parents: []string{"r0"}, paths: []string{"c/old/s.md"}}}, nil
	}
	var asked []string
	renames := func(_ context.Context, revs []string) (map[string]map[string]string, error) {
		asked = append(asked, revs...)
		return map[string]map[string]string{"r2": {"c/new/s.md": "c/old/s.md"}}, nil
	}
	got, err := followAdds(t.Context(), []string{"c/new/s.md"}, list, renames)
	if err != nil {
		t.Fatal(err)
	}
	if g := got["c/new/s.md"]; g.rev != "r1" || g.parent != "r0" {
		t.Errorf("followAdds = %+v, want rev r1 parent r0", g)
	}
	if strings.Join(asked, ",") != "r2,r1" {
		t.Errorf("renames asked about %v, want [r2 r1]", asked)
	}
}
