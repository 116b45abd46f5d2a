package gitx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// ErrNoCommit reports that a revision resolves to no commit.
var ErrNoCommit = errors.New("resolves to no commit")

// Repo is a git repository: its work tree (or, for a bare repository, its
// git directory). Reads go through go-git, opened afresh for each call so
// that refs and packs written by the git CLI in between are always seen;
// everything that writes goes through the git CLI.
type Repo struct {
	Dir string // work tree root, or the git dir of a bare repository
	Bin string // git executable
	// Env is appended to every git process's environment.
	Env []string
}

// Open returns the repository that encloses dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	bin, _, err := Find(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repository path %q: %w", dir, err)
	}
	g, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Missing, fmt.Errorf("open git repository at %s (run it inside one, or pass --repo): %w", abs, err))
	}
	root := abs
	if wt, err := g.Worktree(); err == nil {
		root = wt.Filesystem.Root()
	}
	return &Repo{Dir: root, Bin: bin}, nil
}

func (r *Repo) open() (*git.Repository, error) {
	// The directory itself first (a bare repository has no .git to detect).
	g, err := git.PlainOpenWithOptions(r.Dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		g, err = git.PlainOpenWithOptions(r.Dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", r.Dir, err)
	}
	return g, nil
}

// Resolve returns the full commit SHA that rev names (a full or short SHA,
// a branch, a tag, "refs/remotes/origin/main", "HEAD", "main~2", ...).
// A revision that names nothing, or names a non-commit, wraps ErrNoCommit.
func (r *Repo) Resolve(rev string) (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	c, err := resolveCommit(g, rev)
	if err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

func resolveCommit(g *git.Repository, rev string) (*object.Commit, error) {
	spec := strings.TrimSuffix(rev, "^{commit}")
	if spec == "" {
		return nil, fmt.Errorf("revision %q: %w", rev, ErrNoCommit)
	}
	h, err := g.ResolveRevision(plumbing.Revision(spec))
	if err != nil {
		return nil, fmt.Errorf("revision %q %w: %v", rev, ErrNoCommit, err)
	}
	c, err := g.CommitObject(*h)
	if err != nil {
		// An annotated tag: peel it.
		if t, terr := g.TagObject(*h); terr == nil {
			if c, cerr := t.Commit(); cerr == nil {
				return c, nil
			}
		}
		return nil, fmt.Errorf("revision %q (%s) %w: %v", rev, h, ErrNoCommit, err)
	}
	return c, nil
}

// Commit is what specstack reads of a commit.
type Commit struct {
	SHA     string   `json:"sha"`
	Subject string   `json:"subject"`
	Parents []string `json:"parents"`
}

// Commit reads the commit rev names.
func (r *Repo) Commit(rev string) (Commit, error) {
	g, err := r.open()
	if err != nil {
		return Commit{}, err
	}
	c, err := resolveCommit(g, rev)
	if err != nil {
		return Commit{}, err
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	res := Commit{SHA: c.Hash.String(), Subject: subject}
	for _, p := range c.ParentHashes {
		res.Parents = append(res.Parents, p.String())
	}
	return res, nil
}

// CurrentBranch returns the branch HEAD is on, or "" when HEAD is detached.
func (r *Repo) CurrentBranch() (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	ref, err := g.Reference(plumbing.HEAD, false)
	if err != nil {
		return "", fmt.Errorf("read HEAD of %s: %w", r.Dir, err)
	}
	if ref.Type() != plumbing.SymbolicReference || !ref.Target().IsBranch() {
		return "", nil
	}
	return ref.Target().Short(), nil
}

// Ref returns the SHA a full ref name points at, and whether it exists.
func (r *Repo) Ref(name string) (string, bool, error) {
	g, err := r.open()
	if err != nil {
		return "", false, err
	}
	ref, err := g.Reference(plumbing.ReferenceName(name), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read ref %s in %s: %w", name, r.Dir, err)
	}
	return ref.Hash().String(), true, nil
}

// Branches lists local branch names with their SHAs.
func (r *Repo) Branches() (map[string]string, error) {
	return r.refsUnder("refs/heads/")
}

// RemoteBranches lists remote's tracking branches (as fetched) with SHAs.
func (r *Repo) RemoteBranches(remote string) (map[string]string, error) {
	return r.refsUnder("refs/remotes/" + remote + "/")
}

func (r *Repo) refsUnder(prefix string) (map[string]string, error) {
	g, err := r.open()
	if err != nil {
		return nil, err
	}
	it, err := g.References()
	if err != nil {
		return nil, fmt.Errorf("list refs in %s: %w", r.Dir, err)
	}
	res := map[string]string{}
	err = it.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if rest, ok := strings.CutPrefix(name, prefix); ok && ref.Type() == plumbing.HashReference && rest != "HEAD" {
			res[rest] = ref.Hash().String()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list refs in %s: %w", r.Dir, err)
	}
	return res, nil
}

// MergeBase returns a best common ancestor of a and b, or "" when they
// share no history.
func (r *Repo) MergeBase(a, b string) (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	ca, err := resolveCommit(g, a)
	if err != nil {
		return "", err
	}
	cb, err := resolveCommit(g, b)
	if err != nil {
		return "", err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", nil
	}
	return bases[0].Hash.String(), nil
}

// IsAncestor reports whether a is an ancestor of b (or the same commit).
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	g, err := r.open()
	if err != nil {
		return false, err
	}
	ca, err := resolveCommit(g, a)
	if err != nil {
		return false, err
	}
	cb, err := resolveCommit(g, b)
	if err != nil {
		return false, err
	}
	ok, err := ca.IsAncestor(cb)
	if err != nil {
		return false, fmt.Errorf("is-ancestor %s %s: %w", a, b, err)
	}
	return ok, nil
}

// RemoteURL returns the first URL of remote name.
func (r *Repo) RemoteURL(name string) (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	rem, err := g.Remote(name)
	if err != nil {
		return "", fmt.Errorf("remote %q of %s: %w", name, r.Dir, err)
	}
	urls := rem.Config().URLs
	if len(urls) == 0 {
		return "", fmt.Errorf("remote %q of %s has no URL", name, r.Dir)
	}
	return urls[0], nil
}

// git runs the git CLI in the repository and returns stdout.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return xec.Output(ctx, xec.Cmd{Name: r.Bin, Args: args, Dir: r.Dir, Env: r.Env})
}

// gitRead is git for commands that only read: no optional locks.
func (r *Repo) gitRead(ctx context.Context, args ...string) ([]byte, error) {
	env := append([]string{"GIT_OPTIONAL_LOCKS=0"}, r.Env...)
	return xec.Output(ctx, xec.Cmd{Name: r.Bin, Args: args, Dir: r.Dir, Env: env})
}
