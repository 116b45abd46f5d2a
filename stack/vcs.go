package stack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/jjx"
)

// Remote is the one remote the stack publishes to.
const Remote = gitx.Origin

// VCS is what the stack needs of the local repository: a git work tree,
// or a jj workspace (whose branches are bookmarks).
type VCS interface {
	Kind() string
	Root() string
	// OriginURL is origin's URL, "" when there is no origin.
	OriginURL(ctx context.Context) string
	// CurrentBranches names the branches the checkout sits on: git's
	// current branch; in jj, the bookmarks on @ or @-.
	CurrentBranches(ctx context.Context) ([]string, error)
	Fetch(ctx context.Context) error
	// RemoteSHA is where origin's branch pointed at the last fetch.
	RemoteSHA(ctx context.Context, branch string) (string, bool, error)
	// LocalSHA is where the local branch (bookmark) points.
	LocalSHA(ctx context.Context, branch string) (string, bool, error)
	// Subject is the first line of a commit's message.
	Subject(ctx context.Context, sha string) (string, error)
	// LiveRemoteSHA asks origin itself (ls-remote).
	LiveRemoteSHA(ctx context.Context, branch string) (string, bool, error)
	// Publish pushes the local branch to origin once: never over a remote
	// branch at another commit, never forced.
	Publish(ctx context.Context, branch string) (gitx.PushResult, error)
}

// OpenVCS opens the jj workspace or git repository enclosing dir.
func OpenVCS(ctx context.Context, dir string) (VCS, error) {
	found, err := repo.Find(dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Missing, err)
	}
	if found.IsJJ() {
		j, err := jjx.Open(ctx, found.Root)
		if err != nil {
			return nil, err
		}
		bin, version, err := gitx.Find(ctx)
		if err != nil {
			return nil, err
		}
		store, err := j.GitRoot(ctx)
		if err != nil {
			return nil, err
		}
		return &jjVCS{j: j, g: &gitx.Repo{Dir: store, Bin: bin}, fetchViaGit: !gitx.SupportsColocatedWorkspaces(version), gitVersion: version}, nil
	}
	g, err := gitx.Open(ctx, found.Root)
	if err != nil {
		return nil, err
	}
	return &gitVCS{g: g}, nil
}

type gitVCS struct{ g *gitx.Repo }

func (v *gitVCS) Kind() string { return "git" }
func (v *gitVCS) Root() string { return v.g.Dir }

func (v *gitVCS) OriginURL(ctx context.Context) string {
	u, err := v.g.RemoteURL(ctx, Remote)
	if err != nil {
		return ""
	}
	return u
}

func (v *gitVCS) CurrentBranches(ctx context.Context) ([]string, error) {
	b, err := v.g.CurrentBranch(ctx)
	if err != nil || b == "" {
		return nil, err
	}
	return []string{b}, nil
}

func (v *gitVCS) Fetch(ctx context.Context) error { return v.g.Fetch(ctx, Remote) }

func (v *gitVCS) RemoteSHA(ctx context.Context, branch string) (string, bool, error) {
	return v.g.Ref(ctx, "refs/remotes/"+Remote+"/"+branch)
}

func (v *gitVCS) LocalSHA(ctx context.Context, branch string) (string, bool, error) {
	return v.g.Ref(ctx, "refs/heads/"+branch)
}

func (v *gitVCS) Subject(ctx context.Context, sha string) (string, error) {
	c, err := v.g.Commit(ctx, sha)
	return c.Subject, err
}

func (v *gitVCS) LiveRemoteSHA(ctx context.Context, branch string) (string, bool, error) {
	return v.g.RemoteHead(ctx, Remote, branch)
}

func (v *gitVCS) Publish(ctx context.Context, branch string) (gitx.PushResult, error) {
	return v.g.Push(ctx, Remote, branch, "refs/heads/"+branch)
}

// jjVCS is a jj workspace. jj's own fetch needs git >= 2.42 (its push
// does not); with an older git (fetchViaGit) the fetch runs with git in
// jj's backing git repository, followed by jj git import, so jj records
// the remote bookmarks all the same.
type jjVCS struct {
	j           *jjx.Repo
	g           *gitx.Repo // jj's backing git repository
	fetchViaGit bool
	gitVersion  string
}

// Note says how fetches go, when not through jj itself.
func (v *jjVCS) Note() string {
	if !v.fetchViaGit {
		return ""
	}
	return fmt.Sprintf("git %s is older than the 2.42 jj git fetch needs: fetched with git in jj's git store (%s), then jj git import", v.gitVersion, v.g.Dir)
}

func (v *jjVCS) Kind() string { return "jj" }
func (v *jjVCS) Root() string { return v.j.Root }

func (v *jjVCS) OriginURL(ctx context.Context) string {
	rs, err := v.j.GitRemotes(ctx)
	if err != nil {
		return ""
	}
	return rs[Remote]
}

func (v *jjVCS) CurrentBranches(ctx context.Context) ([]string, error) {
	var ids []string
	for _, rev := range []string{"@", "@-"} {
		cs, err := v.j.Log(ctx, rev)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			ids = append(ids, c.CommitID)
		}
	}
	bms, err := v.j.Bookmarks(ctx)
	if err != nil {
		return nil, err
	}
	var res []string
	for _, b := range bms {
		for _, id := range ids {
			if b.Remote == "" && b.CommitID == id {
				res = append(res, b.Name)
			}
		}
	}
	return res, nil
}

func (v *jjVCS) Fetch(ctx context.Context) error {
	if v.fetchViaGit {
		if err := v.g.Fetch(ctx, Remote); err != nil {
			return err
		}
		return v.j.GitImport(ctx)
	}
	if err := v.j.GitFetch(ctx, Remote); err != nil {
		return fmt.Errorf("fetch %s: %w", Remote, err)
	}
	return nil
}

func (v *jjVCS) bookmark(ctx context.Context, name, remote string) (string, bool, error) {
	bms, err := v.j.Bookmarks(ctx, name)
	if err != nil {
		return "", false, err
	}
	for _, b := range bms {
		if b.Name == name && b.Remote == remote && b.Present {
			if b.CommitID == "" {
				return "", false, exitcode.New(exitcode.Conflicts, "bookmark %s is conflicted: resolve it with jj bookmark set %s -r REV", qualified(name, remote), name)
			}
			return b.CommitID, true, nil
		}
	}
	return "", false, nil
}

func qualified(name, remote string) string {
	if remote == "" {
		return name
	}
	return name + "@" + remote
}

func (v *jjVCS) RemoteSHA(ctx context.Context, branch string) (string, bool, error) {
	return v.bookmark(ctx, branch, Remote)
}

func (v *jjVCS) LocalSHA(ctx context.Context, branch string) (string, bool, error) {
	return v.bookmark(ctx, branch, "")
}

func (v *jjVCS) Subject(ctx context.Context, sha string) (string, error) {
	c, err := v.j.One(ctx, sha)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(c.Description, "\n")
	return s, nil
}

func (v *jjVCS) LiveRemoteSHA(ctx context.Context, branch string) (string, bool, error) {
	u := v.OriginURL(ctx)
	if u == "" {
		return "", false, exitcode.New(exitcode.Usage, "the jj repository at %s has no git remote %q: add it with jj git remote add %s URL", v.j.Root, Remote, Remote)
	}
	return v.g.RemoteHead(ctx, u, branch)
}

// Publish pushes bookmark branch through jj (track, then jj git push -b),
// after checking origin itself: a branch already there at another commit
// is refused, one there at the same commit is left alone.
func (v *jjVCS) Publish(ctx context.Context, branch string) (gitx.PushResult, error) {
	local, ok, err := v.LocalSHA(ctx, branch)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", exitcode.New(exitcode.Usage, "no bookmark %q in %s: create it with jj bookmark set %s -r REV", branch, v.j.Root, branch)
	}
	have, onRemote, err := v.LiveRemoteSHA(ctx, branch)
	if err != nil {
		return "", err
	}
	if onRemote {
		if have == local {
			return gitx.AlreadyPublished, nil
		}
		return "", exitcode.Wrap(exitcode.Failure, fmt.Errorf(
			"push %s to %s: branch %w (%s there, %s here); publish-once never overwrites a published branch: "+
				"inspect it (jj git fetch; jj log -r '%s@%s | %s') and decide by hand",
			branch, Remote, gitx.ErrRemoteMoved, short(have), short(local), branch, Remote, branch))
	}
	if err := v.j.BookmarkTrack(ctx, branch, Remote); err != nil {
		return "", fmt.Errorf("track %s@%s: %w", branch, Remote, err)
	}
	if err := v.j.GitPush(ctx, Remote, branch); err != nil {
		var rej *jjx.RejectedError
		if errors.As(err, &rej) {
			// The bookmark stays tracked at origin, not created there:
			// the next push (a resume) pushes it.
			return "", exitcode.Wrap(exitcode.Failure, fmt.Errorf("push %s: %s; nothing was pushed: settle what %s asks, then push again (resume the run, or gh specstack push %s)", branch, rej.Error(), Remote, branch))
		}
		return "", fmt.Errorf("push %s: %w", branch, err)
	}
	return gitx.Pushed, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
