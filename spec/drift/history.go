package drift

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/jjx"
)

// Base is the revision a delta was written against.
type Base struct {
	Rev    string `json:"rev,omitempty"` // commit ID; "" when unknown
	Known  bool   `json:"known"`
	Source string `json:"source"` // history, uncommitted, metadata, or none
	// Added is the revision that added the delta (history only): when the
	// spec did not exist at Rev, the delta was written against the spec
	// as that revision holds it (both created together).
	Added string `json:"-"`
	// Note says why a recorded base is not used.
	Note string `json:"note,omitempty"`
}

// At names a repository path at a revision.
type At struct{ Rev, Path string }

// Commit is a revision that moved a spec.
type Commit struct {
	ID       string `json:"commit"`
	ChangeID string `json:"change_id,omitempty"`
	Summary  string `json:"summary"`
}

// History reads what the repository's history knows about the files of
// an OpenSpec project. Paths are repository-relative, with slashes.
type History interface {
	// Kind is "jj", "git" or "none".
	Kind() string
	// Bases finds, for each path, the parent of the earliest revision
	// that added it (the revision it was authored on), following renames
	// back to the file it was moved from; a path history
	// does not hold yet gets the working copy's parent (jj) or HEAD (git).
	// One history call for all paths.
	Bases(ctx context.Context, paths []string) (map[string]Base, error)
	// Read reads files at revisions, in one call; a file absent there
	// reads as exists=false. An At with an empty Path asks whether the
	// commit Rev exists.
	Read(ctx context.Context, at []At) ([]string, []bool, error)
	// Movers returns, for each path, the newest revision that changed it
	// (in one call for all paths); a path never changed is absent.
	Movers(ctx context.Context, paths []string) (map[string]Commit, error)
	// Current is the revision holding the files as they are now, to be
	// recorded as a change's new base; "" when there is none (git with
	// uncommitted edits to paths).
	Current(ctx context.Context, paths []string) (string, error)
}

// OpenHistory returns the history of the repository around dir: jj for a
// jj workspace, git for a git work tree with commits, none otherwise.
// Root is the repository root that paths are relative to ("" for none).
func OpenHistory(ctx context.Context, dir string) (History, string, error) {
	rp, err := repo.Find(dir)
	if errors.Is(err, repo.ErrNotFound) {
		return noHistory{}, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if rp.IsJJ() {
		// repo.Find has found the workspace root: no `jj workspace root`.
		bin, _, err := jjx.Find(ctx)
		if err != nil {
			return nil, "", err
		}
		return &jjHistory{repo: &jjx.Repo{Root: rp.Root, Bin: bin}}, rp.Root, nil
	}
	g, err := gitx.Open(ctx, rp.Root)
	if err != nil {
		return nil, "", err
	}
	has, err := g.HasHead(ctx)
	if err != nil {
		return nil, "", err
	}
	if !has {
		return noHistory{}, "", nil
	}
	return &gitHistory{repo: g}, g.Dir, nil
}

type noHistory struct{}

func (noHistory) Kind() string { return "none" }
func (noHistory) Bases(context.Context, []string) (map[string]Base, error) {
	return map[string]Base{}, nil
}
func (noHistory) Read(_ context.Context, at []At) ([]string, []bool, error) {
	return make([]string, len(at)), make([]bool, len(at)), nil
}
func (noHistory) Movers(context.Context, []string) (map[string]Commit, error) { return nil, nil }
func (noHistory) Current(context.Context, []string) (string, error)           { return "", nil }

type jjHistory struct {
	repo  *jjx.Repo
	store *gitx.Repo
	wc    *jjx.Commit
}

func (h *jjHistory) Kind() string { return "jj" }

func (h *jjHistory) workingCopy(ctx context.Context) (jjx.Commit, error) {
	if h.wc == nil {
		c, err := h.repo.WorkingCopy(ctx)
		if err != nil {
			return c, err
		}
		h.wc = &c
	}
	return *h.wc, nil
}

func (h *jjHistory) Bases(ctx context.Context, paths []string) (map[string]Base, error) {
	out := map[string]Base{}
	if len(paths) == 0 {
		return out, nil
	}
	earliest, err := followAdds(ctx, paths, func(ctx context.Context, dir string) ([]addition, error) {
		added, err := h.repo.AddedUnder(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("read the history of the change files: %w", err)
		}
		out := make([]addition, len(added))
		for i, a := range added {
			out[i] = addition{rev: a.CommitID, parents: a.Parents, paths: a.Paths, from: a.From}
		}
		return out, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	written, err := h.writtenOn(ctx, earliest)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if e, ok := earliest[p]; ok {
			out[p] = Base{Rev: e.parent, Known: true, Source: "history", Added: e.rev}
			if w, ok := written[e.rev][e.path]; ok && len(w) == 1 && w[0] != e.parent {
				// Rebased since it was written: the base is where it was
				// written, else the rebase's new parent's edits to the
				// spec would pass for the base and be overwritten.
				out[p] = Base{Rev: w[0], Known: true, Source: "history", Added: e.rev}
			}
			continue
		}
		wc, err := h.workingCopy(ctx)
		if err != nil {
			return nil, err
		}
		if len(wc.Parents) > 0 {
			out[p] = Base{Rev: wc.Parents[0], Known: true, Source: "uncommitted"}
		}
	}
	return out, nil
}

// writtenOn asks jj's evolution log of the adding revisions where their
// paths were last written (jjx.WrittenOn), in one call.
func (h *jjHistory) writtenOn(ctx context.Context, adds map[string]adder) (map[string]map[string][]string, error) {
	byRev := map[string][]string{}
	for _, e := range adds {
		byRev[e.rev] = append(byRev[e.rev], e.path)
	}
	out, err := h.repo.WrittenOn(ctx, byRev)
	if err != nil {
		return nil, fmt.Errorf("read the evolution of the revisions that added change files: %w", err)
	}
	return out, nil
}

func (h *jjHistory) Read(ctx context.Context, at []At) ([]string, []bool, error) {
	if h.store == nil {
		root, ok := gitStore(h.repo.Root)
		if !ok {
			var err error
			if root, err = h.repo.GitRoot(ctx); err != nil {
				return nil, nil, fmt.Errorf("find the git store of %s: %w", h.repo.Root, err)
			}
		}
		h.store = &gitx.Repo{Dir: root}
	}
	return readBlobs(ctx, h.store, at)
}

func (h *jjHistory) Movers(ctx context.Context, paths []string) (map[string]Commit, error) {
	ts, err := h.repo.Touching(ctx, paths)
	if err != nil {
		return nil, err
	}
	return newestMovers(len(ts), func(i int) (Commit, []string) {
		return Commit{ID: ts[i].CommitID, ChangeID: ts[i].ChangeID, Summary: ts[i].Description}, ts[i].Paths
	}), nil
}

// Current is @'s parent when @ leaves the paths alone (a revision that
// stays visible when @ is later rewritten), else @ itself (jj has just
// snapshotted the working copy, so @ holds the files as they are).
func (h *jjHistory) Current(ctx context.Context, paths []string) (string, error) {
	wc, err := h.repo.WorkingCopy(ctx)
	if err != nil {
		return "", err
	}
	if len(wc.Parents) != 1 || len(paths) == 0 {
		return wc.CommitID, nil
	}
	touched, err := h.repo.Touches(ctx, wc.CommitID, paths)
	if err != nil {
		return "", err
	}
	if touched {
		return wc.CommitID, nil
	}
	return wc.Parents[0], nil
}

type gitHistory struct{ repo *gitx.Repo }

func (h *gitHistory) Kind() string { return "git" }

func (h *gitHistory) Bases(ctx context.Context, paths []string) (map[string]Base, error) {
	out := map[string]Base{}
	if len(paths) == 0 {
		return out, nil
	}
	earliest, err := followAdds(ctx, paths, func(ctx context.Context, dir string) ([]addition, error) {
		added, err := h.repo.AddedUnder(ctx, dir)
		if err != nil {
			return nil, err
		}
		out := make([]addition, len(added))
		for i, a := range added {
			out[i] = addition{rev: a.SHA, parents: a.Parents, paths: a.Paths}
		}
		return out, nil
	}, h.repo.RenamesIn)
	if err != nil {
		return nil, err
	}
	var head string
	for _, p := range paths {
		if e, ok := earliest[p]; ok {
			out[p] = Base{Rev: e.parent, Known: true, Source: "history", Added: e.rev}
			continue
		}
		if head == "" {
			if head, err = h.repo.Resolve(ctx, "HEAD"); err != nil {
				return nil, err
			}
		}
		out[p] = Base{Rev: head, Known: true, Source: "uncommitted"}
	}
	return out, nil
}

func (h *gitHistory) Read(ctx context.Context, at []At) ([]string, []bool, error) {
	return readBlobs(ctx, h.repo, at)
}

func (h *gitHistory) Movers(ctx context.Context, paths []string) (map[string]Commit, error) {
	ts, err := h.repo.Touching(ctx, paths)
	if err != nil {
		return nil, err
	}
	return newestMovers(len(ts), func(i int) (Commit, []string) {
		return Commit{ID: ts[i].SHA, Summary: ts[i].Subject}, ts[i].Paths
	}), nil
}

// Current is HEAD when every path holds HEAD's bytes, else "" (a commit
// cannot name uncommitted text).
func (h *gitHistory) Current(ctx context.Context, paths []string) (string, error) {
	head, err := h.repo.Resolve(ctx, "HEAD")
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return head, nil
	}
	same, err := h.repo.Unchanged(ctx, paths)
	if err != nil || !same {
		return "", err
	}
	return head, nil
}

// newestMovers maps each path to the first revision naming it in a
// newest-first list: the newest that changed it.
func newestMovers(n int, at func(int) (Commit, []string)) map[string]Commit {
	out := map[string]Commit{}
	for i := 0; i < n; i++ {
		c, paths := at(i)
		for _, p := range paths {
			if _, ok := out[p]; !ok {
				out[p] = c
			}
		}
	}
	return out
}

// adder is the revision that added a path (as named there, after
// following renames back) and that revision's first parent.
type adder struct{ rev, parent, path string }

// addition is one revision adding files: its parents, the paths it added
// and, for the renamed ones, the path each was renamed from.
type addition struct {
	rev     string
	parents []string
	paths   []string
	from    map[string]string
}

// maxRenameHops bounds how many renames followAdds follows back, each
// one more history call.
const maxRenameHops = 8

// followAdds maps each path to the earliest revision that added it and
// that revision's first parent, following renames: when that revision
// renamed the path from another (a change folder renamed after it was
// written), the earliest revision adding the source stands for it, and
// so on back, so that the base is where the delta was written, not where
// it was moved. list returns, newest first, the revisions adding files
// under a directory, with the renames it sees; renames, when not nil,
// names the renames of the revisions given (for a list that cannot see
// a rename from outside its directory). Each is called once, then once
// per rename hop (at most maxRenameHops) for all paths together.
func followAdds(ctx context.Context, paths []string, list func(context.Context, string) ([]addition, error),
	renames func(context.Context, []string) (map[string]map[string]string, error)) (map[string]adder, error) {
	out := map[string]adder{}
	want := map[string][]string{} // a path looked up → the paths asked about it stands for
	for _, p := range paths {
		want[p] = append(want[p], p)
	}
	seen := map[string]bool{}
	for hop := 0; len(want) > 0 && hop <= maxRenameHops; hop++ {
		var ps []string
		for p := range want {
			ps = append(ps, p)
			seen[p] = true
		}
		sort.Strings(ps)
		adds, err := list(ctx, commonDir(ps))
		if err != nil {
			return nil, err
		}
		earliest := earliestAdds(adds)
		if renames != nil {
			var revs []string
			has := map[string]bool{}
			for _, p := range ps {
				if e, ok := earliest[p]; ok && !has[e.rev] {
					has[e.rev] = true
					revs = append(revs, e.rev)
				}
			}
			rn, err := renames(ctx, revs)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if e, ok := earliest[p]; ok {
					e.from = rn[e.rev][p]
					earliest[p] = e
				}
			}
		}
		next := map[string][]string{}
		for _, p := range ps {
			e, ok := earliest[p]
			if !ok {
				continue
			}
			for _, orig := range want[p] {
				out[orig] = adder{e.rev, e.parent, p}
			}
			if src := e.from; src != "" && src != p && !seen[src] {
				next[src] = append(next[src], want[p]...)
			}
		}
		want = next
	}
	return out, nil
}

type earliestAdd struct{ rev, parent, from string }

// earliestAdds maps each added path to the earliest revision adding it,
// that revision's first parent ("" for a root commit) and the path it
// was renamed from there, if it was, from a newest-first list.
func earliestAdds(adds []addition) map[string]earliestAdd {
	out := map[string]earliestAdd{}
	for i := len(adds) - 1; i >= 0; i-- {
		a := adds[i]
		parent := ""
		if len(a.parents) > 0 {
			parent = a.parents[0]
		}
		for _, p := range a.paths {
			if _, ok := out[p]; !ok {
				out[p] = earliestAdd{a.rev, parent, a.from[p]}
			}
		}
	}
	return out
}

func readBlobs(ctx context.Context, g *gitx.Repo, at []At) ([]string, []bool, error) {
	texts, exists := make([]string, len(at)), make([]bool, len(at))
	var names []string
	var idx []int
	for i, a := range at {
		if a.Rev == "" || strings.Trim(a.Rev, "0") == "" {
			continue // the empty tree (jj's root commit): nothing exists there
		}
		if a.Path == "" {
			names = append(names, a.Rev+"^{commit}")
		} else {
			names = append(names, a.Rev+":"+a.Path)
		}
		idx = append(idx, i)
	}
	blobs, err := g.ReadFiles(ctx, names)
	if err != nil {
		return nil, nil, err
	}
	for k, b := range blobs {
		if at[idx[k]].Path == "" {
			exists[idx[k]] = b.Type == "commit"
			continue
		}
		texts[idx[k]], exists[idx[k]] = string(b.Content), b.Exists
	}
	return texts, exists, nil
}

// commonDir is the deepest directory holding every path.
func commonDir(paths []string) string {
	dir := filepath.ToSlash(filepath.Dir(paths[0]))
	for _, p := range paths[1:] {
		for dir != "." && !strings.HasPrefix(p, dir+"/") {
			dir = filepath.ToSlash(filepath.Dir(dir))
		}
	}
	return dir
}

// gitStore reads where jj keeps the git repository of the workspace at
// root from its files (.jj/repo, a directory or, in a secondary
// workspace, a file naming it; store/git_target, relative to the store),
// saving a `jj git root` call; false when the layout is not that.
func gitStore(root string) (string, bool) {
	repoDir := filepath.Join(root, ".jj", "repo")
	if fi, err := os.Stat(repoDir); err == nil && !fi.IsDir() {
		b, err := os.ReadFile(repoDir)
		if err != nil {
			return "", false
		}
		repoDir = strings.TrimSpace(string(b))
		if !filepath.IsAbs(repoDir) {
			repoDir = filepath.Join(root, ".jj", repoDir)
		}
	}
	store := filepath.Join(repoDir, "store")
	b, err := os.ReadFile(filepath.Join(store, "git_target"))
	if err != nil {
		return "", false
	}
	target := strings.TrimSpace(string(b))
	if !filepath.IsAbs(target) {
		target = filepath.Join(store, target)
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Clean(target), true
}
