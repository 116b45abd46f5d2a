package gitx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/specstack/specstack/internal/repo"
)

// Reads go through go-git, in process: a git process costs a fork and
// git's own start-up (2-5 ms here) for what is a few file reads. The
// repository is opened anew for each read (its config and refs are
// files; objects are immutable), so refs and packs written in between by
// git, jj or a worker are always seen. The git CLI stays where go-git is
// weak or absent: worktrees, rebase, merges, push, fetch, the path-limited
// history walks (git's history simplification and rename detection), and
// the work tree's status.

// store is a repository's objects and refs, read through go-git's storage
// (not its top-level package, whose transports would link net/http and
// TLS into every binary).
type store struct{ s *filesystem.Storage }

// open opens the repository at r.Dir: a work tree, a directory in one, a
// linked worktree (whose refs and objects live in the common directory),
// or a bare repository, such as jj's git store.
func (r *Repo) open() (*store, error) {
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("open the git repository at %s: %w", r.Dir, err)
	}
	for d := dir; ; {
		gitDir, common, ok, err := repo.GitDirs(d)
		if err != nil {
			return nil, fmt.Errorf("open the git repository at %s: %w", r.Dir, err)
		}
		if ok {
			var fs billy.Filesystem = osfs.New(gitDir, osfs.WithBoundOS())
			if common != gitDir {
				fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(common, osfs.WithBoundOS()))
			}
			return &store{s: filesystem.NewStorage(fs, cache.NewObjectLRUDefault())}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("open the git repository at %s: %w", r.Dir, errNoRepository)
		}
		d = parent
	}
}

var errNoRepository = errors.New("no git repository here or in any parent")

// reference is the ref name points at; with resolve, symbolic refs are
// followed.
func (g *store) reference(name plumbing.ReferenceName, resolve bool) (*plumbing.Reference, error) {
	if resolve {
		return storer.ResolveReference(g.s, name)
	}
	return g.s.Reference(name)
}

func (g *store) commit(h plumbing.Hash) (*object.Commit, error) { return object.GetCommit(g.s, h) }

// resolve is Resolve through go-git. It answers what it can answer
// exactly: a full SHA, a full ref name, HEAD, and a name git would find
// under refs/, refs/tags/, refs/heads/ or refs/remotes/ (in git's order),
// each optionally followed by ~N and ^N steps. Anything else (a short
// SHA, @{...}, :/text, ^{...}) goes to the CLI: ok is false.
func resolve(g *store, rev string) (sha string, ok bool, err error) {
	name, steps := splitSteps(rev)
	if name == "" || !plainName(name) {
		return "", false, nil
	}
	var h plumbing.Hash
	switch {
	case isFullSHA(name):
		h = plumbing.NewHash(name)
	default:
		ref, found, err := lookupRef(g, name)
		if err != nil {
			return "", true, err
		}
		if !found {
			if looksLikeSHA(name) {
				return "", false, nil // perhaps a short SHA: the CLI knows
			}
			return "", true, ErrNoCommit
		}
		h = ref
	}
	c, err := peelToCommit(g, h)
	if err != nil {
		return "", true, err
	}
	for _, s := range steps {
		for range s.n {
			if s.parent > len(c.ParentHashes) || len(c.ParentHashes) == 0 {
				return "", true, ErrNoCommit
			}
			idx := 0
			if s.parent > 0 {
				idx = s.parent - 1
			}
			parent, err := g.commit(c.ParentHashes[idx])
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				return "", false, nil // a shallow clone's edge: git knows
			}
			if err != nil {
				return "", true, fmt.Errorf("read a parent of %s: %w", c.Hash, err)
			}
			c = parent
		}
	}
	return c.Hash.String(), true, nil
}

// step is one ~N (n steps of the first parent) or ^N (one step to
// parent N; ^0 is the commit itself).
type step struct{ n, parent int }

// splitSteps splits "main~2^2" into "main" and its steps; a suffix it
// cannot read leaves rev whole with no steps (plainName then refuses it).
func splitSteps(rev string) (string, []step) {
	i := strings.IndexAny(rev, "~^")
	if i < 0 {
		return rev, nil
	}
	name, rest := rev[:i], rev[i:]
	var steps []step
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		n := 1
		if j > 0 {
			if _, err := fmt.Sscanf(rest[:j], "%d", &n); err != nil || n > 1<<16 {
				return rev, nil
			}
		}
		rest = rest[j:]
		switch {
		case op == '~':
			steps = append(steps, step{n: n, parent: 1})
		case op == '^' && n == 0:
		case op == '^':
			steps = append(steps, step{n: 1, parent: n})
		default:
			return rev, nil
		}
	}
	return name, steps
}

// plainName reports whether name is a ref name or SHA with nothing of
// git's revision syntax in it.
func plainName(name string) bool {
	return !strings.ContainsAny(name, "@{}:^~ \t\n\\*?[") && !strings.HasPrefix(name, "-") && !strings.Contains(name, "..")
}

func isFullSHA(s string) bool { return len(s) == 40 && looksLikeSHA(s) }

func looksLikeSHA(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// lookupRef finds name as git does (gitrevisions(7)): $GIT_DIR/name
// (HEAD and other pseudo-refs), refs/name, refs/tags/name,
// refs/heads/name, refs/remotes/name, refs/remotes/name/HEAD; symbolic
// refs are followed.
func lookupRef(g *store, name string) (plumbing.Hash, bool, error) {
	for _, full := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		if full != "HEAD" && !strings.HasPrefix(full, "refs/") && strings.ToUpper(full) != full {
			continue // only all-caps pseudo-refs live at the top
		}
		ref, err := g.reference(plumbing.ReferenceName(full), true)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read ref %s: %w", full, err)
		}
		return ref.Hash(), true, nil
	}
	return plumbing.ZeroHash, false, nil
}

// peelToCommit follows annotated tags to the commit h names; a tree or a
// blob is ErrNoCommit.
func peelToCommit(g *store, h plumbing.Hash) (*object.Commit, error) {
	for range 16 {
		obj, err := object.GetObject(g.s, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, ErrNoCommit
		}
		if err != nil {
			return nil, fmt.Errorf("read object %s: %w", h, err)
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o, nil
		case *object.Tag:
			h = o.Target
		default:
			return nil, ErrNoCommit
		}
	}
	return nil, ErrNoCommit
}

// readBlobs reads each "REV:PATH" of names through go-git, as git
// cat-file --batch would; ok is false when a revision is beyond resolve
// (the CLI then reads them all).
func readBlobs(ctx context.Context, g *store, names []string) ([]Blob, bool, error) {
	res := make([]Blob, len(names))
	trees := map[string]*object.Tree{}
	for i, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
		rev, path, found := strings.Cut(n, ":")
		if !found || path == "" {
			return nil, false, nil
		}
		t, seen := trees[rev]
		if !seen {
			sha, ok, err := resolve(g, rev)
			if !ok {
				return nil, false, nil
			}
			if err == nil {
				c, cerr := g.commit(plumbing.NewHash(sha))
				if cerr != nil {
					return nil, true, fmt.Errorf("read commit %s: %w", sha, cerr)
				}
				if t, err = c.Tree(); err != nil {
					return nil, true, fmt.Errorf("read the tree of %s: %w", sha, err)
				}
			} else if !errors.Is(err, ErrNoCommit) {
				return nil, true, err
			}
			trees[rev] = t
		}
		if t == nil {
			continue // no such revision: missing, as cat-file says
		}
		e, err := findEntry(g, t, strings.Trim(path, "/"))
		if err != nil {
			return nil, true, fmt.Errorf("read %s: %w", n, err)
		}
		if e == nil {
			continue // missing, or under a file where a directory would be
		}
		switch {
		case e.Mode.IsFile():
			b, err := object.GetBlob(g.s, e.Hash)
			if err != nil {
				return nil, true, fmt.Errorf("read %s: %w", n, err)
			}
			rd, err := b.Reader()
			if err != nil {
				return nil, true, fmt.Errorf("read %s: %w", n, err)
			}
			data, err := io.ReadAll(rd)
			rd.Close()
			if err != nil {
				return nil, true, fmt.Errorf("read %s: %w", n, err)
			}
			res[i] = Blob{Content: data, Exists: true, Type: "blob"}
		case e.Mode == filemode.Dir:
			res[i].Type = "tree"
		default:
			res[i].Type = "commit" // a submodule
		}
	}
	return res, true, nil
}

// isAncestor walks b's history breadth first looking for a, reading at
// most limit commits; decided is false when it stopped at the limit.
func isAncestor(ctx context.Context, g *store, a, b plumbing.Hash, limit int) (ok, decided bool, err error) {
	seen := map[plumbing.Hash]bool{b: true}
	queue := []plumbing.Hash{b}
	for len(queue) > 0 {
		if len(seen) > limit {
			return false, false, nil
		}
		if err := ctx.Err(); err != nil {
			return false, true, err
		}
		h := queue[0]
		queue = queue[1:]
		c, err := g.commit(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return false, false, nil // a shallow clone's edge: git knows
		}
		if err != nil {
			return false, true, fmt.Errorf("read commit %s: %w", h, err)
		}
		for _, p := range c.ParentHashes {
			if p == a {
				return true, true, nil
			}
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, true, nil
}

// findEntry finds path in t a component at a time, as git does: a
// component that is not a directory (a file, a symbolic link) ends the
// walk with nothing found, nil.
func findEntry(g *store, t *object.Tree, path string) (*object.TreeEntry, error) {
	parts := strings.Split(path, "/")
	for i, name := range parts {
		var found *object.TreeEntry
		for k := range t.Entries {
			if t.Entries[k].Name == name {
				found = &t.Entries[k]
				break
			}
		}
		if found == nil || i == len(parts)-1 {
			return found, nil
		}
		if found.Mode != filemode.Dir {
			return nil, nil
		}
		sub, err := object.GetTree(g.s, found.Hash)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", found.Hash, err)
		}
		t = sub
	}
	return nil, nil
}
