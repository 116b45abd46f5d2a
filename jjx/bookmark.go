package jjx

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/xec"
)

// Bookmark is a local or remote bookmark.
type Bookmark struct {
	Name     string `json:"name"`
	Remote   string `json:"remote,omitempty"` // "" for local
	Tracked  bool   `json:"tracked"`
	CommitID string `json:"commit_id,omitempty"` // "" when conflicted or absent
	Present  bool   `json:"present"`
}

// bookmarkTemplate prints one JSON object a bookmark. The commit is
// json()-ed inside the if: jj 0.46 renders json(if(normal_target,
// normal_target.commit_id(), "")) of a remote bookmark that is tracked but
// absent ("not created yet", after a push origin declined) as the text
// "<Error: No value set to Option<Commit>>", which is not JSON.
const bookmarkTemplate = `"{\"name\":" ++ json(name) ++ ",\"remote\":" ++ json(if(remote, remote, "")) ++ ",\"tracked\":" ++ json(tracked) ++ ",\"present\":" ++ json(present) ++ ",\"commit_id\":" ++ if(normal_target, json(normal_target.commit_id()), json("")) ++ "}\n"`

// Bookmarks lists bookmarks with their remote copies. Names filters by
// exact name when given.
func (r *Repo) Bookmarks(ctx context.Context, names ...string) ([]Bookmark, error) {
	args := []string{"bookmark", "list", "--all-remotes", "-T", bookmarkTemplate}
	for _, n := range names {
		args = append(args, exact(n))
	}
	out, err := r.call(ctx, args...)
	if err != nil {
		return nil, err
	}
	var res []Bookmark
	for _, l := range lines(out) {
		var b Bookmark
		if err := json.Unmarshal([]byte(l), &b); err != nil {
			return nil, fmt.Errorf("decode jj bookmark %q: %w", l, err)
		}
		if b.Remote == "git" { // the colocated git ref mirror, not a remote
			continue
		}
		res = append(res, b)
	}
	return res, nil
}

// BookmarkSet points bookmark name at rev (allowing backwards moves only
// when allowBackwards is set).
func (r *Repo) BookmarkSet(ctx context.Context, name, rev string, allowBackwards bool) error {
	args := []string{"bookmark", "set", name, "-r", rev}
	if allowBackwards {
		args = append(args, "--allow-backwards")
	}
	_, err := r.call(ctx, args...)
	return err
}

// BookmarkTrack starts tracking name@remote.
func (r *Repo) BookmarkTrack(ctx context.Context, name, remote string) error {
	_, err := r.call(ctx, "bookmark", "track", exact(name), "--remote", remote)
	if err != nil && strings.Contains(err.Error(), "already tracked") {
		return nil
	}
	return err
}

// GitPush pushes bookmark name to remote (default "origin"). jj itself
// refuses to move a remote bookmark that changed since it was last
// fetched, so this never overwrites someone else's push. A push the
// remote declined (a hook, a protection rule) is a *RejectedError.
func (r *Repo) GitPush(ctx context.Context, remote, name string) error {
	args := []string{"git", "push", "-b", exact(name)}
	if remote != "" {
		args = append(args, "--remote", remote)
	}
	_, err := r.call(ctx, args...)
	var xe *xec.Error
	if err != nil && errors.As(err, &xe) && strings.Contains(xe.Stderr, "remote rejected") {
		rej := &RejectedError{Remote: cmp.Or(remote, "origin"), Err: err}
		for _, l := range strings.Split(xe.Stderr, "\n") {
			l = strings.TrimSpace(l)
			if m, ok := strings.CutPrefix(l, "remote:"); ok && strings.TrimSpace(m) != "" {
				rej.Said = append(rej.Said, strings.TrimSpace(m))
			}
			if _, reason, ok := strings.Cut(l, "(reason: "); ok {
				rej.Reason = strings.TrimSuffix(reason, ")")
			}
		}
		return rej
	}
	return err
}

// RejectedError is a push the remote received and declined: Said holds
// the lines the remote printed ("remote: ..."), Reason git's reason
// ("pre-receive hook declined").
type RejectedError struct {
	Remote string
	Said   []string
	Reason string
	Err    error
}

func (e *RejectedError) Error() string {
	msg := e.Remote + " declined the push"
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	if len(e.Said) > 0 {
		msg += ": " + strings.Join(e.Said, "; ")
	}
	return msg
}

func (e *RejectedError) Unwrap() error { return e.Err }

// GitFetch fetches from remote (default: jj's default).
func (r *Repo) GitFetch(ctx context.Context, remote string) error {
	args := []string{"git", "fetch"}
	if remote != "" {
		args = append(args, "--remote", remote)
	}
	_, err := r.call(ctx, args...)
	return err
}

// BookmarkForget forgets the bookmark name and its remote-tracking
// bookmarks (its @git one included) without touching any remote; one
// that does not exist is not an error.
func (r *Repo) BookmarkForget(ctx context.Context, name string) error {
	_, err := r.call(ctx, "bookmark", "forget", "--include-remotes", "--", "exact:"+name)
	return err
}
