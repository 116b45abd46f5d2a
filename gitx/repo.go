package gitx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/specstack/specstack/internal/xec"
)

// ErrNoCommit reports that a revision resolves to no commit.
var ErrNoCommit = errors.New("resolves to no commit")

// ReadTimeout bounds each git process that reads the repository.
const ReadTimeout = time.Minute

// NetworkTimeout bounds each git process that talks to a remote (push,
// fetch) or writes many files (apply).
const NetworkTimeout = 10 * time.Minute

// Repo is a git repository: its work tree (or, for a bare repository, its
// git directory). Reads go through go-git in process (store.go), the rest
// through the git CLI; CLI reads run with GIT_OPTIONAL_LOCKS=0, and no
// read takes a lock.
type Repo struct {
	Dir string // work tree root, or the git dir of a bare repository
	Bin string // git executable; "" means git on PATH
	// Env is appended to every git process's environment.
	Env []string
}

// NotRepositoryError is a directory Open finds no git repository at.
type NotRepositoryError struct {
	Dir string // the directory, absolute
	Err error  // git's refusal
}

func (e *NotRepositoryError) Error() string {
	return fmt.Sprintf("open git repository at %s (run it inside one, or pass --repo): %v", e.Dir, e.Err)
}

func (e *NotRepositoryError) Unwrap() error { return e.Err }

// Open returns the repository that encloses dir; outside one, the error
// is a *NotRepositoryError.
func Open(ctx context.Context, dir string) (*Repo, error) {
	bin, _, err := Find(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repository path %q: %w", dir, err)
	}
	r := &Repo{Dir: abs, Bin: bin}
	out, err := r.gitRead(ctx, "rev-parse", "--is-bare-repository", "--show-toplevel")
	if err != nil {
		return nil, &NotRepositoryError{Dir: abs, Err: err}
	}
	// A bare repository prints only "true": its directory is the repository.
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) == 2 && lines[0] == "false" {
		r.Dir = filepath.Clean(lines[1])
	}
	return r, nil
}

// Resolve returns the full commit SHA that rev names (a full or short SHA,
// a branch, a tag, "refs/remotes/origin/main", "HEAD", "main~2", ...).
// A revision that names nothing, or names a non-commit, wraps ErrNoCommit.
// It is read in process (see store.go); revision syntax beyond names and
// ~N/^N steps, and short SHAs, go to git rev-parse.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	spec := strings.TrimSuffix(rev, "^{commit}")
	if spec == "" {
		return "", fmt.Errorf("revision %q: %w", rev, ErrNoCommit)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("resolve revision %q in %s: %w", rev, r.Dir, err)
	}
	if g, err := r.open(); err == nil {
		sha, ok, err := resolve(g, spec)
		if ok {
			if errors.Is(err, ErrNoCommit) {
				return "", fmt.Errorf("revision %q: %w", rev, ErrNoCommit)
			}
			if err != nil {
				return "", fmt.Errorf("resolve revision %q in %s: %w", rev, r.Dir, err)
			}
			return sha, nil
		}
	}
	// --end-of-options: a revision is never an option, whatever it starts with.
	out, err := r.gitRead(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", spec+"^{commit}")
	if xec.ExitCode(err) == 1 {
		return "", fmt.Errorf("revision %q: %w", rev, ErrNoCommit)
	}
	if err != nil {
		return "", fmt.Errorf("resolve revision %q in %s: %w", rev, r.Dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit is what specstack reads of a commit.
type Commit struct {
	SHA     string   `json:"sha"`
	Subject string   `json:"subject"`
	Parents []string `json:"parents"`
	// Body is the message after the subject and the blank line.
	Body string `json:"-"`
}

// Commit reads the commit rev names.
func (r *Repo) Commit(ctx context.Context, rev string) (Commit, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return Commit{}, err
	}
	g, err := r.open()
	if err != nil {
		return Commit{}, err
	}
	o, err := g.commit(plumbing.NewHash(sha))
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s in %s: %w", sha, r.Dir, err)
	}
	c := Commit{SHA: sha}
	for _, p := range o.ParentHashes {
		c.Parents = append(c.Parents, p.String())
	}
	var rest string
	c.Subject, rest, _ = strings.Cut(o.Message, "\n")
	c.Body = strings.TrimPrefix(rest, "\n")
	return c, nil
}

// CurrentBranch returns the branch HEAD is on, or "" when HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	head, err := g.reference(plumbing.HEAD, false)
	if err != nil {
		return "", fmt.Errorf("read HEAD of %s: %w", r.Dir, err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return "", nil // detached
	}
	branch, ok := strings.CutPrefix(head.Target().String(), "refs/heads/")
	if !ok {
		return "", nil
	}
	return branch, nil
}

// Ref returns the SHA a full ref name ("refs/heads/main") points at,
// through a symbolic ref, and whether it exists.
// It reads that ref alone: a ref git is writing elsewhere in the
// repository meanwhile is no concern of it.
func (r *Repo) Ref(ctx context.Context, name string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	g, err := r.open()
	if err != nil {
		return "", false, err
	}
	ref, err := g.reference(plumbing.ReferenceName(name), true)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return "", false, nil // missing, or a symbolic ref to nothing
	case err != nil:
		return "", false, fmt.Errorf("read ref %s in %s: %w", name, r.Dir, err)
	}
	return ref.Hash().String(), true, nil
}

// Branches lists local branch names with their SHAs.
func (r *Repo) Branches(ctx context.Context) (map[string]string, error) {
	return r.refsUnder(ctx, "refs/heads/")
}

// RemoteBranches lists remote's tracking branches (as fetched) with SHAs.
func (r *Repo) RemoteBranches(ctx context.Context, remote string) (map[string]string, error) {
	return r.refsUnder(ctx, "refs/remotes/"+remote+"/")
}

// refsUnder lists the refs under prefix that point at an object (symbolic
// refs such as refs/remotes/origin/HEAD are left out), by name below it.
func (r *Repo) refsUnder(ctx context.Context, prefix string) (map[string]string, error) {
	refs, err := r.forEachRef(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list refs in %s: %w", r.Dir, err)
	}
	res := map[string]string{}
	for _, ref := range refs {
		if rest, ok := strings.CutPrefix(ref.name, prefix); ok && !ref.symbolic && rest != "HEAD" {
			res[rest] = ref.sha
		}
	}
	return res, nil
}

type ref struct {
	name, sha string
	symbolic  bool
}

// forEachRef lists the refs pattern matches (as git for-each-ref: the
// ref itself and, a component at a time, the refs below it), a symbolic
// ref with the SHA of its target ("" when the target is missing).
func (r *Repo) forEachRef(ctx context.Context, pattern string) ([]ref, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := r.open()
	if err != nil {
		return nil, err
	}
	iter, err := iterReferences(ctx, g)
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	prefix := strings.TrimSuffix(pattern, "/") + "/"
	var refs []ref
	err = iter.ForEach(func(rf *plumbing.Reference) error {
		name := rf.Name().String()
		if name != strings.TrimSuffix(pattern, "/") && !strings.HasPrefix(name, prefix) {
			return nil
		}
		if rf.Type() == plumbing.SymbolicReference {
			target, err := g.reference(rf.Name(), true)
			if err != nil {
				return nil // dangling: git for-each-ref leaves it out too
			}
			refs = append(refs, ref{name: name, sha: target.Hash().String(), symbolic: true})
			return nil
		}
		refs = append(refs, ref{name: name, sha: rf.Hash().String()})
		return nil
	})
	slices.SortFunc(refs, func(a, b ref) int { return strings.Compare(a.name, b.name) })
	return refs, err
}

// iterReferences is every ref of the repository. go-git reads every file
// under refs/, the lock files of refs git is writing too, and fails on
// one git has just created empty: read again, a few times, until git
// has renamed it into place.
func iterReferences(ctx context.Context, g *store) (storer.ReferenceIter, error) {
	for try := 0; ; try++ {
		iter, err := g.s.IterReferences()
		if !errors.Is(err, dotgit.ErrEmptyRefFile) || try == 20 {
			return iter, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// MergeBase returns a best common ancestor of a and b, or "" when they
// share no history.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	ca, cb, err := r.resolveBoth(ctx, a, b)
	if err != nil {
		return "", err
	}
	g, err := r.open()
	if err != nil {
		return "", err
	}
	oa, err := g.commit(plumbing.NewHash(ca))
	if err != nil {
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	ob, err := g.commit(plumbing.NewHash(cb))
	if err != nil {
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	bases, err := oa.MergeBase(ob)
	if err == nil && len(bases) == 0 {
		return "", nil // no common history
	}
	if err != nil || len(bases) > 1 {
		// A shallow clone's missing history, or several best bases
		// (criss-cross merges): git's answer is its own.
		out, err := r.gitRead(ctx, "merge-base", ca, cb)
		if err != nil {
			return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	return bases[0].Hash.String(), nil
}

// ancestorWalk bounds IsAncestor's walk in process: past it (a long
// history where a is not found), git's commit-graph answers faster.
const ancestorWalk = 10000

// IsAncestor reports whether a is an ancestor of b (or the same commit).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	ca, cb, err := r.resolveBoth(ctx, a, b)
	if err != nil {
		return false, err
	}
	if ca == cb {
		return true, nil
	}
	if g, err := r.open(); err == nil {
		if ok, decided, err := isAncestor(ctx, g, plumbing.NewHash(ca), plumbing.NewHash(cb), ancestorWalk); decided {
			if err != nil {
				return false, fmt.Errorf("is-ancestor %s %s: %w", a, b, err)
			}
			return ok, nil
		}
	}
	_, err = r.gitRead(ctx, "merge-base", "--is-ancestor", ca, cb)
	if err == nil {
		return true, nil
	}
	if xec.ExitCode(err) == 1 {
		return false, nil
	}
	return false, fmt.Errorf("is-ancestor %s %s: %w", a, b, err)
}

// resolveBoth resolves two revisions to commit SHAs, so that the commands
// comparing them are only ever given SHAs.
func (r *Repo) resolveBoth(ctx context.Context, a, b string) (string, string, error) {
	ca, err := r.Resolve(ctx, a)
	if err != nil {
		return "", "", err
	}
	cb, err := r.Resolve(ctx, b)
	if err != nil {
		return "", "", err
	}
	return ca, cb, nil
}

// RemoteURL returns the first URL of remote name, as configured.
func (r *Repo) RemoteURL(ctx context.Context, name string) (string, error) {
	g, err := r.open()
	if err != nil {
		return "", err
	}
	cfg, err := g.s.Config()
	if err != nil {
		return "", fmt.Errorf("remote %q of %s: read the configuration: %w", name, r.Dir, err)
	}
	if rem, ok := cfg.Remotes[name]; ok && len(rem.URLs) > 0 {
		return rem.URLs[0], nil
	}
	return "", fmt.Errorf("remote %q of %s has no URL", name, r.Dir)
}

// git runs the git CLI in the repository and returns stdout, under
// NetworkTimeout: the bound of a process that may talk to a remote
// (fetch) or write many files (checkout, worktree add).
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return r.gitWithin(ctx, NetworkTimeout, args...)
}

// gitWithin is git bounded by timeout.
func (r *Repo) gitWithin(ctx context.Context, timeout time.Duration, args ...string) ([]byte, error) {
	return xec.Output(ctx, xec.Cmd{Name: r.bin(), Args: args, Dir: r.Dir, Env: r.Env, Timeout: timeout})
}

// gitRead is git for commands that only read: no optional locks, and a
// deadline.
func (r *Repo) gitRead(ctx context.Context, args ...string) ([]byte, error) {
	env := append([]string{"GIT_OPTIONAL_LOCKS=0"}, r.Env...)
	return xec.Output(ctx, xec.Cmd{Name: r.bin(), Args: args, Dir: r.Dir, Env: env, Timeout: ReadTimeout})
}

func (r *Repo) bin() string {
	if r.Bin == "" {
		return "git"
	}
	return r.Bin
}
