package jjx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/xec"
)

// WorkspaceInfo is one entry of `jj workspace list`.
type WorkspaceInfo struct {
	Name     string `json:"name"`
	ChangeID string `json:"change_id"`
	CommitID string `json:"commit_id"`
}

// Workspaces lists the repository's workspaces.
func (r *Repo) Workspaces(ctx context.Context) ([]WorkspaceInfo, error) {
	out, err := r.call(ctx, "workspace", "list", "-T",
		`"{\"name\":" ++ json(name) ++ ",\"change_id\":" ++ json(target.change_id()) ++ ",\"commit_id\":" ++ json(target.commit_id()) ++ "}\n"`)
	if err != nil {
		return nil, err
	}
	var res []WorkspaceInfo
	for _, l := range lines(out) {
		var w WorkspaceInfo
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			return nil, fmt.Errorf("decode jj workspace %q: %w", l, err)
		}
		res = append(res, w)
	}
	return res, nil
}

// AddWorkspaceOptions configures WorkspaceAdd.
type AddWorkspaceOptions struct {
	Name    string
	Path    string
	Parents []string // parent revisions; empty means jj's default
	Message string   // description of the new working-copy change
}

var gitNeedsNoColocate = sync.OnceValue(func() bool {
	out, err := xec.Output(context.Background(), xec.Cmd{Name: "git", Args: []string{"--version"}, Timeout: CallTimeout})
	if err != nil {
		return true
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return true
	}
	v, err := ParseVersion(f[2])
	if err != nil {
		return true
	}
	return v.Less(Version{Major: 2, Minor: 42})
})

// WorkspaceAdd creates a workspace. With git older than 2.42 (which jj
// needs for colocated workspaces) it passes --no-colocate.
func (r *Repo) WorkspaceAdd(ctx context.Context, o AddWorkspaceOptions) error {
	args := []string{"workspace", "add", "--name", o.Name}
	for _, p := range o.Parents {
		args = append(args, "-r", p)
	}
	if o.Message != "" {
		args = append(args, "-m", o.Message)
	}
	if gitNeedsNoColocate() {
		_, err := r.call(ctx, append(append(append([]string{}, args...), "--no-colocate"), o.Path)...)
		if err == nil || !strings.Contains(err.Error(), "unexpected argument '--no-colocate'") {
			return err
		}
		// An older jj without colocated workspaces: the flag is not needed.
	}
	_, err := r.call(ctx, append(args, o.Path)...)
	return err
}

// UpdateStale brings a stale working copy (ErrStale) up to date: run on
// the workspace's own Repo.
func (r *Repo) UpdateStale(ctx context.Context) error {
	_, err := r.call(ctx, "workspace", "update-stale")
	return err
}

// WorkspaceForget stops tracking the named workspaces (files stay on disk).
func (r *Repo) WorkspaceForget(ctx context.Context, names ...string) error {
	_, err := r.call(ctx, append([]string{"workspace", "forget"}, names...)...)
	return err
}

// Workspace is a provisioned workspace, from Provision to Release.
type Workspace struct {
	Name string
	Path string
	repo *Repo // jj bound to the workspace's own root
}

// Repo returns a Repo rooted at the workspace, for calls that must see
// its working copy (jj snapshots it on each call).
func (w *Workspace) Repo() *Repo { return w.repo }

// Pool provisions and releases workspaces of one repository. It is safe
// for use from many goroutines: workspaces of different names are made
// and removed in parallel (jj merges the concurrent operations); two
// calls for one name race, and one of them fails.
type Pool struct {
	Repo *Repo
	Dir  string // parent directory of the workspaces' paths
}

// ErrWorkspaceExists reports a name or path already in use.
var ErrWorkspaceExists = errors.New("workspace already exists")

// Provision creates workspace name at Dir/name on the parents (the
// default parents when none are given).
func (p *Pool) Provision(ctx context.Context, name, message string, parents ...string) (*Workspace, error) {
	path := filepath.Join(p.Dir, name)
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("provision %s: %w at %s (release it or pick another run)", name, ErrWorkspaceExists, path)
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("provision %s: %w", name, err)
	}
	if err := p.Repo.WorkspaceAdd(ctx, AddWorkspaceOptions{Name: name, Path: path, Parents: parents, Message: message}); err != nil {
		return nil, fmt.Errorf("provision %s: %w", name, err)
	}
	return &Workspace{Name: name, Path: path, repo: p.Repo.At(path)}, nil
}

// Attach returns the Workspace for an existing name, as recorded earlier
// (for resume); it runs nothing.
func (p *Pool) Attach(name string) *Workspace {
	path := filepath.Join(p.Dir, name)
	return &Workspace{Name: name, Path: path, repo: p.Repo.At(path)}
}

// Release forgets the workspace and removes its directory. Its change
// stays in the repository.
func (p *Pool) Release(ctx context.Context, w *Workspace) error {
	if err := p.Repo.WorkspaceForget(ctx, w.Name); err != nil && !errors.Is(err, ErrNoWorkspace) {
		return fmt.Errorf("release %s: %w", w.Name, err)
	}
	if err := confine.RemoveUnder(p.Dir, w.Path); err != nil {
		return fmt.Errorf("release %s: %w", w.Name, err)
	}
	return nil
}

// IsRoot reports whether commitID is jj's root() commit (all zeros with the
// git backend): where `jj workspace add` leaves a workspace whose process
// was killed between its two operations ("add workspace", which checks out
// a new commit on root(), then "create initial working-copy commit").
func IsRoot(commitID string) bool { return commitID != "" && strings.Trim(commitID, "0") == "" }
