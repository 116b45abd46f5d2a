package drift

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// that added it (the revision it was authored on); a path history
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
	added, err := h.repo.AddedUnder(ctx, commonDir(paths))
	if err != nil {
		return nil, fmt.Errorf("read the history of the change files: %w", err)
	}
	earliest := earliestAdds(len(added), func(i int) (string, []string, []string) {
		return added[i].CommitID, added[i].Parents, added[i].Paths
	})
	for _, p := range paths {
		if e, ok := earliest[p]; ok {
			out[p] = Base{Rev: e.parent, Known: true, Source: "history", Added: e.rev}
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
	added, err := h.repo.AddedUnder(ctx, commonDir(paths))
	if err != nil {
		return nil, err
	}
	earliest := earliestAdds(len(added), func(i int) (string, []string, []string) {
		return added[i].SHA, added[i].Parents, added[i].Paths
	})
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

type adder struct{ rev, parent string }

// earliestAdds maps each added path to the earliest revision adding it
// and that revision's first parent ("" for a root commit), from a
// newest-first list.
func earliestAdds(n int, at func(int) (string, []string, []string)) map[string]adder {
	out := map[string]adder{}
	for i := n - 1; i >= 0; i-- {
		rev, parents, paths := at(i)
		parent := ""
		if len(parents) > 0 {
			parent = parents[0]
		}
		for _, p := range paths {
			if _, ok := out[p]; !ok {
				out[p] = adder{rev, parent}
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
