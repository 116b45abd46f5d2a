package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/specstack/specstack/internal/xec"
)

// ErrRemoteMoved reports that a branch already exists on the remote at
// another commit; publish-once never overwrites it.
var ErrRemoteMoved = errors.New("already exists on the remote at another commit")

// Fetch fetches remote's branches into refs/remotes/<remote>/.
func (r *Repo) Fetch(ctx context.Context, remote string) error {
	if _, err := r.git(ctx, "fetch", "--quiet", "--no-tags", remote); err != nil {
		return fmt.Errorf("fetch %s: %w", remote, err)
	}
	return nil
}

// RemoteHead asks remote where branch points; ok is false when the remote
// has no such branch. A remote on this machine (a path, or a file:// URL)
// is read in process through go-git; any other is asked with git
// ls-remote, which follows the user's credential helpers, SSH
// configuration, proxies and url.*.insteadOf as every other git command
// does, under ReadTimeout.
func (r *Repo) RemoteHead(ctx context.Context, remote, branch string) (sha string, ok bool, err error) {
	heads, err := r.RemoteHeads(ctx, remote, branch)
	sha, ok = heads[branch]
	return sha, ok, err
}

// RemoteHeads is RemoteHead for several branches at once (one ls-remote):
// the commit of each branch the remote has.
func (r *Repo) RemoteHeads(ctx context.Context, remote string, branches ...string) (map[string]string, error) {
	heads := map[string]string{}
	if dir := r.localRemote(ctx, remote); dir != "" {
		if g, err := (&Repo{Dir: dir}).open(); err == nil {
			read := true
			for _, b := range branches {
				ref, err := g.reference(plumbing.NewBranchReferenceName(b), false)
				if err == nil && ref.Type() == plumbing.HashReference {
					heads[b] = ref.Hash().String()
				} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
					read = false
				}
			}
			if read {
				return heads, nil
			}
			clear(heads)
		}
	}
	args := []string{"ls-remote", "--heads", remote}
	for _, b := range branches {
		args = append(args, "refs/heads/"+b)
	}
	out, err := r.gitRead(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("ls-remote %s %s: %w", remote, strings.Join(branches, " "), err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		if b, ok := strings.CutPrefix(f[1], "refs/heads/"); ok && slices.Contains(branches, b) {
			heads[b] = f[0]
		}
	}
	return heads, nil
}

// localRemote is the directory of remote (a remote's name, or a URL or
// path) when it is on this machine, else "".
func (r *Repo) localRemote(ctx context.Context, remote string) string {
	url := remote
	if u, err := r.RemoteURL(ctx, remote); err == nil {
		url = u
	}
	if p, ok := strings.CutPrefix(url, "file://"); ok {
		return p
	}
	if strings.Contains(url, "://") || url == "" {
		return ""
	}
	// scp-like host:path is a network remote; a path has no colon before
	// its first slash.
	if i := strings.Index(url, ":"); i >= 0 && (!strings.Contains(url, "/") || i < strings.Index(url, "/")) {
		return ""
	}
	if !filepath.IsAbs(url) {
		url = filepath.Join(r.Dir, url)
	}
	return url
}

// Origin is the one remote specstack publishes to.
const Origin = "origin"

// RevisionError is a Push of a revision that resolves to no commit: the
// caller's input is wrong, nothing was pushed.
type RevisionError struct {
	Branch string // the branch that was to be pushed
	Err    error  // why the revision did not resolve
}

func (e *RevisionError) Error() string { return fmt.Sprintf("push %s: %v", e.Branch, e.Err) }

func (e *RevisionError) Unwrap() error { return e.Err }

// PushResult says what Push did.
type PushResult string

const (
	Pushed           PushResult = "pushed"            // the branch was created on the remote
	AlreadyPublished PushResult = "already-published" // the remote already had it at this commit
)

// Push publishes rev as branch on remote, once: when the remote has no
// such branch it is created (a plain push, never forced); when the remote
// already has it at the same commit nothing is pushed; when the remote has
// it at any other commit the push is refused with ErrRemoteMoved, naming
// both commits. A rev that resolves to no commit is a *RevisionError. The remote is asked directly (ls-remote), not through a
// possibly stale tracking ref.
func (r *Repo) Push(ctx context.Context, remote, branch, rev string) (PushResult, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return "", &RevisionError{Branch: branch, Err: err}
	}
	have, ok, err := r.RemoteHead(ctx, remote, branch)
	if err != nil {
		return "", err
	}
	if ok {
		if have == sha {
			return AlreadyPublished, nil
		}
		return "", fmt.Errorf(
			"push %s to %s: branch %w (%s there, %s here); publish-once never overwrites a published branch: "+
				"inspect it (git fetch %s; git log %s..%s/%s) and decide by hand",
			branch, remote, ErrRemoteMoved, short(have), short(sha), remote, short(sha), remote, branch)
	}
	if _, err := r.gitWithin(ctx, NetworkTimeout, "push", "--quiet", "--no-verify", remote, sha+":refs/heads/"+branch); err != nil {
		return "", fmt.Errorf("push %s to %s: %w", branch, remote, err)
	}
	return Pushed, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// FetchBranches fetches each branch of remote that exists into its ref
// (into[branch]: a name no one else uses, so the update is never
// forced), in one fetch, and returns the commit of each fetched; a
// branch the remote does not have is absent from the result.
func (r *Repo) FetchBranches(ctx context.Context, remote string, into map[string]string) (map[string]string, error) {
	branches := slices.Sorted(maps.Keys(into))
	heads, err := r.RemoteHeads(ctx, remote, branches...)
	if err != nil {
		return nil, err
	}
	got := map[string]string{}
	var specs []string
	for _, b := range branches {
		if _, ok := heads[b]; ok {
			specs = append(specs, "refs/heads/"+b+":"+into[b])
			got[b] = ""
		}
	}
	if len(specs) == 0 {
		return got, nil
	}
	args := append([]string{"fetch", "--quiet", "--no-tags", remote}, specs...)
	if _, err := r.gitWithin(ctx, NetworkTimeout, args...); err != nil {
		return nil, fmt.Errorf("fetch %s from %s: %w", strings.Join(slices.Sorted(maps.Keys(got)), ", "), remote, err)
	}
	for b := range got {
		// Read by git, not in process: other fetches and deletions may be
		// writing refs of the same repository meanwhile.
		out, err := r.gitRead(ctx, "rev-parse", "--verify", "--quiet", into[b]+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("read %s after fetching %s: %w", into[b], b, err)
		}
		got[b] = strings.TrimSpace(string(out))
	}
	return got, nil
}

// DeleteRemoteBranches deletes branches on remote (a plain push of their
// deletion: one already gone is not an error).
func (r *Repo) DeleteRemoteBranches(ctx context.Context, remote string, branches ...string) error {
	heads, err := r.RemoteHeads(ctx, remote, branches...)
	if err != nil {
		return err
	}
	var refs []string
	for _, b := range branches {
		if _, ok := heads[b]; ok {
			refs = append(refs, "refs/heads/"+b)
		}
	}
	if len(refs) == 0 {
		return nil
	}
	args := append([]string{"push", "--quiet", "--no-verify", remote, "--delete"}, refs...)
	if _, err := r.gitWithin(ctx, NetworkTimeout, args...); err != nil {
		return fmt.Errorf("delete %s on %s: %w", strings.Join(branches, ", "), remote, err)
	}
	return nil
}

// DeleteRef deletes the local ref name (refs/...); a missing one is not
// an error.
func (r *Repo) DeleteRef(ctx context.Context, name string) error {
	if _, err := r.gitWithin(ctx, ReadTimeout, "update-ref", "-d", name); err != nil {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	return nil
}

// ApplyDiff makes the files under dir, a directory holding a checkout of
// commit from (not a git work tree: no enclosing repository is looked
// for), hold commit to instead: the two commits' diff, applied as a
// patch (binary files, modes, symbolic links and deletions included).
// Paths leaving dir are refused by git apply; a change to a .git or .jj
// folder (a repository's or jj workspace's own metadata) is refused here,
// with the paths, and nothing is applied. A diff already applied to dir
// is not applied twice.
func (r *Repo) ApplyDiff(ctx context.Context, from, to, dir string) error {
	if err := r.CheckMetadata(ctx, from, to); err != nil {
		return err
	}
	patch, err := r.gitRead(ctx, "diff", "--binary", "--full-index", "--no-renames", "--no-ext-diff", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/", from, to, "--")
	if err != nil {
		return fmt.Errorf("diff %s %s: %w", short(from), short(to), err)
	}
	if len(patch) == 0 {
		return nil
	}
	apply := func(args ...string) error {
		return xec.Run(ctx, xec.Cmd{Name: r.bin(), Args: append(append([]string{"apply", "--whitespace=nowarn"}, args...), "-"), Dir: dir,
			Stdin: bytes.NewReader(patch), Env: append([]string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)}, r.Env...), Timeout: NetworkTimeout})
	}
	err = apply()
	if err == nil || ctx.Err() != nil {
		return err
	}
	// git apply writes all or nothing. A diff that reverses cleanly is
	// already in dir: a process killed after applying it, before saying
	// so, applies it again on resume.
	if apply("--reverse", "--check") == nil {
		return nil
	}
	return &ApplyError{From: from, To: to, Dir: dir, Err: err}
}

// ApplyError is a diff ApplyDiff could not apply: dir holds neither the
// diff's old side nor its new one (someone changed its files meanwhile).
type ApplyError struct {
	From, To, Dir string
	Err           error
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("apply the diff of %s to %s in %s: %v", short(e.From), short(e.To), e.Dir, e.Err)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// CheckMetadata returns a *MetadataError naming the paths of a .git or
// .jj folder (a repository's or jj workspace's own metadata) that the
// diff from commit from to commit to changes: no worker may write them.
func (r *Repo) CheckMetadata(ctx context.Context, from, to string) error {
	stats, err := r.NumStat(ctx, from, to)
	if err != nil {
		return err
	}
	var meta []string
	for _, s := range stats {
		for _, part := range strings.Split(s.Path, "/") {
			if part == ".git" || part == ".jj" {
				meta = append(meta, s.Path)
				break
			}
		}
	}
	if len(meta) > 0 {
		return &MetadataError{Paths: meta}
	}
	return nil
}

// UpdateRef points the ref name (refs/...) at commit sha, created or
// moved.
func (r *Repo) UpdateRef(ctx context.Context, name, sha string) error {
	if _, err := r.gitWithin(ctx, ReadTimeout, "update-ref", name, sha); err != nil {
		return fmt.Errorf("set ref %s to %s: %w", name, short(sha), err)
	}
	return nil
}

// MetadataError is a diff ApplyDiff refused: it changes repository
// metadata (.git or .jj folders), which no worker may write.
type MetadataError struct{ Paths []string }

func (e *MetadataError) Error() string {
	return fmt.Sprintf("it changes repository metadata (%s): not applied", strings.Join(e.Paths, ", "))
}
