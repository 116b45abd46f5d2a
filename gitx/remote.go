package gitx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
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
	if dir := r.localRemote(ctx, remote); dir != "" {
		if g, err := (&Repo{Dir: dir}).open(); err == nil {
			ref, err := g.reference(plumbing.NewBranchReferenceName(branch), false)
			if errors.Is(err, plumbing.ErrReferenceNotFound) {
				return "", false, nil
			}
			if err == nil && ref.Type() == plumbing.HashReference {
				return ref.Hash().String(), true, nil
			}
		}
	}
	out, err := r.gitRead(ctx, "ls-remote", "--heads", remote, "refs/heads/"+branch)
	if err != nil {
		return "", false, fmt.Errorf("ls-remote %s %s: %w", remote, branch, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[1] == "refs/heads/"+branch {
			return f[0], true, nil
		}
	}
	return "", false, nil
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
	if _, err := r.git(ctx, "push", "--quiet", "--no-verify", remote, sha+":refs/heads/"+branch); err != nil {
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
