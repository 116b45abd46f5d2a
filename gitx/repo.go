package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// ErrNoCommit reports that a revision resolves to no commit.
var ErrNoCommit = errors.New("resolves to no commit")

// ReadTimeout bounds each git process that reads the repository.
const ReadTimeout = time.Minute

// Repo is a git repository: its work tree (or, for a bare repository, its
// git directory). Everything goes through the git CLI, each read a fresh
// process, so refs and packs written in between are always seen; reads
// run with GIT_OPTIONAL_LOCKS=0 and never take a lock.
//
// The CLI rather than a Go git library: a library's package initialisation
// (config parser, OpenPGP, SSH and HTTP transports) would run at every
// start of every binary, including --version; see cmd/startup_test.go.
type Repo struct {
	Dir string // work tree root, or the git dir of a bare repository
	Bin string // git executable; "" means git on PATH
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
	r := &Repo{Dir: abs, Bin: bin}
	out, err := r.gitRead(ctx, "rev-parse", "--is-bare-repository", "--show-toplevel")
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Missing, fmt.Errorf("open git repository at %s (run it inside one, or pass --repo): %w", abs, err))
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
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	spec := strings.TrimSuffix(rev, "^{commit}")
	if spec == "" {
		return "", fmt.Errorf("revision %q: %w", rev, ErrNoCommit)
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
}

// Commit reads the commit rev names.
func (r *Repo) Commit(ctx context.Context, rev string) (Commit, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return Commit{}, err
	}
	raw, err := r.gitRead(ctx, "cat-file", "commit", sha)
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s in %s: %w", sha, r.Dir, err)
	}
	return parseCommit(sha, raw), nil
}

// parseCommit reads a raw commit object (git cat-file commit): header
// lines up to the first empty line, then the message.
func parseCommit(sha string, raw []byte) Commit {
	c := Commit{SHA: sha}
	header, message, _ := bytes.Cut(raw, []byte("\n\n"))
	for _, l := range strings.Split(string(header), "\n") {
		if p, ok := strings.CutPrefix(l, "parent "); ok {
			c.Parents = append(c.Parents, p)
		}
	}
	subject, _, _ := bytes.Cut(message, []byte("\n"))
	c.Subject = string(subject)
	return c
}

// CurrentBranch returns the branch HEAD is on, or "" when HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	out, err := r.gitRead(ctx, "symbolic-ref", "--quiet", "HEAD")
	if xec.ExitCode(err) == 1 {
		return "", nil // detached
	}
	if err != nil {
		return "", fmt.Errorf("read HEAD of %s: %w", r.Dir, err)
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "refs/heads/")
	if !ok {
		return "", nil
	}
	return branch, nil
}

// Ref returns the SHA a full ref name ("refs/heads/main") points at,
// through a symbolic ref, and whether it exists.
func (r *Repo) Ref(ctx context.Context, name string) (string, bool, error) {
	refs, err := r.forEachRef(ctx, name)
	if err != nil {
		return "", false, fmt.Errorf("read ref %s in %s: %w", name, r.Dir, err)
	}
	for _, ref := range refs {
		if ref.name == name {
			return ref.sha, true, nil
		}
	}
	return "", false, nil
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

// forEachRef lists the refs pattern matches (git for-each-ref: the ref
// itself and, a component at a time, the refs below it), a symbolic ref
// with the SHA of its target.
func (r *Repo) forEachRef(ctx context.Context, pattern string) ([]ref, error) {
	out, err := r.gitRead(ctx, "for-each-ref", "--format=%(objectname)%00%(symref)%00%(refname)", "--", pattern)
	if err != nil {
		return nil, err
	}
	var refs []ref
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Split(l, "\x00"); len(f) == 3 {
			refs = append(refs, ref{name: f[2], sha: f[0], symbolic: f[1] != ""})
		}
	}
	return refs, nil
}

// MergeBase returns a best common ancestor of a and b, or "" when they
// share no history.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	ca, cb, err := r.resolveBoth(ctx, a, b)
	if err != nil {
		return "", err
	}
	out, err := r.gitRead(ctx, "merge-base", ca, cb)
	if xec.ExitCode(err) == 1 {
		return "", nil // no common history
	}
	if err != nil {
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// IsAncestor reports whether a is an ancestor of b (or the same commit).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	ca, cb, err := r.resolveBoth(ctx, a, b)
	if err != nil {
		return false, err
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
	out, err := r.gitRead(ctx, "config", "--get-all", "--", "remote."+name+".url")
	if xec.ExitCode(err) == 1 {
		return "", fmt.Errorf("remote %q of %s has no URL", name, r.Dir)
	}
	if err != nil {
		return "", fmt.Errorf("remote %q of %s: %w", name, r.Dir, err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return first, nil
}

// git runs the git CLI in the repository and returns stdout.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return xec.Output(ctx, xec.Cmd{Name: r.bin(), Args: args, Dir: r.Dir, Env: r.Env})
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
