// Package jjx is a typed wrapper over the jj CLI.
//
// Every call passes --no-pager --color=never -R <root> and pins
// ui.conflict-marker-style, runs with stdin closed and an environment that
// cannot open an editor, and reads machine output through -T templates.
// A *Repo is safe for concurrent use.
package jjx

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/internal/version"
	"github.com/specstack/specstack/internal/xec"
)

// MinVersion is the oldest jj specstack supports.
const MinVersion = "0.30.0"

// MarkerStyle is the conflict-marker style pinned on every call, so the
// conflict package always reads one known format from jj's own output.
const MarkerStyle = "diff"

// InstallHint tells a person how to get a supported jj.
const InstallHint = "install jj >= " + MinVersion + " (your distribution's jj package, or https://jj-vcs.github.io/jj/latest/install-and-setup/; `make install` in a specstack source tree installs one when none is on PATH)"

// ErrNotFound reports that no jj is on PATH.
var ErrNotFound = errors.New("jj not found on PATH")

// ErrNotWorkspace is returned by Open for a directory outside any jj
// workspace.
var ErrNotWorkspace = errors.New("not in a jj workspace")

// Repo is a jj workspace.
type Repo struct {
	Root string // workspace root
	Bin  string // jj executable
	// Env is appended to every jj process's environment.
	Env []string
	// Strict makes every call that snapshots the working copy fail with
	// a *RefusedError when jj left files out of the snapshot (it only
	// warns): for workspaces whose files must all reach a commit.
	Strict bool
	// held: the Repo of an Exclusive section, whose calls do not wait
	// for it.
	held bool
}

// exclusive orders this process's jj calls around Exclusive sections:
// every call holds it shared, a section holds it alone.
var exclusive sync.RWMutex

// Exclusive runs fn while no other jj command of this process runs, with
// a Repo of this workspace whose calls fn makes. It is for a git branch
// that must reach jj through one import only: jj imports every git
// branch at the start of each command in a colocated workspace, and its
// merge of two concurrent operations that both imported a commit brings
// it back after one of them abandoned it. fn's Repo is for fn alone.
func (r *Repo) Exclusive(fn func(*Repo) error) error {
	exclusive.Lock()
	defer exclusive.Unlock()
	h := *r
	h.held = true
	return fn(&h)
}

// Version is a parsed jj version.
type Version = version.V

// ParseVersion reads "jj 0.46.0" or "0.46.0-abcdef".
func ParseVersion(s string) (Version, error) { return version.Parse(s) }

var versionCache sync.Map // bin -> versionResult

type versionResult struct {
	v   Version
	err error
}

// Find locates jj on PATH and checks its version: once per process, and
// once per jj binary across processes (see versionCacheFile). No jj on
// PATH is ErrNotFound; one whose version is unreadable or too old is a
// *version.ToolError.
func Find(ctx context.Context) (string, Version, error) {
	bin, err := xec.LookPath("jj")
	if err != nil {
		return "", Version{}, fmt.Errorf("%w: %s", ErrNotFound, InstallHint)
	}
	if r, ok := versionCache.Load(bin); ok {
		res := r.(versionResult)
		return bin, res.v, res.err
	}
	v, err := checkVersion(ctx, bin)
	versionCache.Store(bin, versionResult{v, err})
	return bin, v, err
}

// unusable is the refusal of the jj at bin: too old, or (err) its
// version unread.
func unusable(bin, v string, err error) error {
	return &version.ToolError{Tool: "jj", Bin: bin, Version: v, Hint: InstallHint, Err: err}
}

func checkVersion(ctx context.Context, bin string) (Version, error) {
	cache := versionCacheFile(bin)
	v, ok := cachedVersion(cache)
	if !ok {
		out, err := xec.Output(ctx, xec.Cmd{Name: bin, Args: []string{"--version"}, Timeout: CallTimeout})
		if err != nil {
			return Version{}, unusable(bin, "", fmt.Errorf("jj --version: %w", err))
		}
		if v, err = ParseVersion(string(out)); err != nil {
			return Version{}, unusable(bin, "", err)
		}
		storeVersion(cache, v)
	}
	minV, err := ParseVersion(MinVersion)
	if err != nil {
		return v, fmt.Errorf("jjx.MinVersion %q: %w", MinVersion, err)
	}
	if v.Less(minV) {
		return v, unusable(bin, v.String(), nil)
	}
	return v, nil
}

// Open returns the jj workspace that encloses dir. The workspace is
// found on the file system as jj finds it (the nearest directory holding
// .jj, through symlinks), with no process; jj is asked (`jj workspace
// root`) only when that finds none, for its answer and its error.
func Open(ctx context.Context, dir string) (*Repo, error) {
	bin, _, err := Find(ctx)
	if err != nil {
		return nil, err
	}
	if root := findWorkspace(dir); root != "" {
		return &Repo{Root: root, Bin: bin}, nil
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: bin, Dir: dir, Args: []string{"--no-pager", "--color=never", "--ignore-working-copy", "workspace", "root"}, Timeout: CallTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s is %w (run `jj git init` or pass --repo): %w", dir, ErrNotWorkspace, err)
	}
	return &Repo{Root: strings.TrimSpace(string(out)), Bin: bin}, nil
}

// findWorkspace is the root of the jj workspace enclosing dir, read from
// the file system (internal/repo, through symlinks, as jj prints it) when
// its .jj holds a working copy and a repository (a file, in a secondary
// workspace); "" otherwise, for jj to answer.
func findWorkspace(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	found, err := repo.Find(real)
	if err != nil || !found.IsJJ() {
		return ""
	}
	for _, part := range []string{"repo", "working_copy"} {
		if _, err := os.Lstat(filepath.Join(found.MetaDir, part)); err != nil {
			return "" // a broken workspace: jj says what is wrong
		}
	}
	return found.Root
}

// At returns a Repo for a known workspace root without running jj.
func (r *Repo) At(root string) *Repo {
	return &Repo{Root: root, Bin: r.Bin, Env: r.Env, Strict: r.Strict, held: r.held}
}

// CallTimeout bounds every jj process: jj waits for a working-copy or
// operation lock another process holds without a limit of its own, and a
// push or fetch talks to a remote. Generous, for a large repository's
// first snapshot; a caller's context may end it sooner.
const CallTimeout = 10 * time.Minute

func (r *Repo) globalArgs() []string {
	return []string{"--no-pager", "--color=never", "-R", r.Root,
		"--config", "ui.conflict-marker-style=" + MarkerStyle}
}

// call runs jj with args (after the global flags) and returns stdout.
// It stays inside this package: everything else goes through typed
// calls, whose failures callers tell apart with errors.Is (ErrStale,
// ErrNoWorkspace), never by jj's text.
func (r *Repo) call(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, nil, args)
}

// callRead is call with --ignore-working-copy: for reads that must not
// snapshot the working copy.
func (r *Repo) callRead(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, nil, append([]string{"--ignore-working-copy"}, args...))
}

func (r *Repo) run(ctx context.Context, extraEnv []string, args []string) ([]byte, error) {
	if !r.held {
		exclusive.RLock()
		defer exclusive.RUnlock()
	}
	argv := append(r.globalArgs(), args...)
	env := append(append([]string{}, r.Env...), extraEnv...)
	c := xec.Cmd{Name: r.Bin, Args: argv, Dir: r.Root, Env: env, Timeout: CallTimeout}
	var warnings *capped
	if r.Strict && (len(args) == 0 || args[0] != "--ignore-working-copy") {
		warnings = &capped{max: xec.MaxStderr}
		c.Stderr = warnings
	}
	out, err := xec.Output(ctx, c)
	if err != nil {
		return out, &Error{Op: args, Err: err}
	}
	if warnings != nil {
		if files := parseRefused(warnings.String()); len(files) > 0 {
			return out, &RefusedError{Root: r.Root, Files: files}
		}
	}
	return out, nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	max int
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// Error is a failed jj call.
type Error struct {
	Op  []string
	Err error
}

func (e *Error) Error() string {
	var xe *xec.Error
	if errors.As(e.Err, &xe) {
		msg := strings.TrimSpace(xe.Stderr)
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", xe.ExitCode)
		}
		return fmt.Sprintf("jj %s: %s", strings.Join(e.Op, " "), msg)
	}
	return fmt.Sprintf("jj %s: %v", strings.Join(e.Op, " "), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinel errors a failed jj call matches with errors.Is. jj's own text
// is read here only, so no caller depends on its wording.
var (
	// ErrStale: the workspace's working copy is stale (another workspace
	// rewrote its commit); UpdateStale repairs it.
	ErrStale = errors.New("jj working copy is stale")
	// ErrNoWorkspace: jj knows no workspace of that name (forgotten, or
	// never made).
	ErrNoWorkspace = errors.New("no such jj workspace")
)

// Is matches the sentinel errors by what jj printed.
func (e *Error) Is(target error) bool {
	var xe *xec.Error
	if !errors.As(e.Err, &xe) {
		return false
	}
	switch target {
	case ErrStale:
		return strings.Contains(xe.Stderr, "working copy is stale")
	case ErrNoWorkspace:
		// "No such workspace" from older jj's forget; a command run in a
		// forgotten workspace's directory says it has no working copy.
		return strings.Contains(xe.Stderr, "No such workspace") || strings.Contains(xe.Stderr, "doesn't have a working-copy commit")
	}
	return false
}

// ExitCode is jj's exit code, or -1.
func (e *Error) ExitCode() int { return xec.ExitCode(e.Err) }

// lines splits output into non-empty lines.
func lines(out []byte) []string {
	var res []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			res = append(res, l)
		}
	}
	return res
}

// decodeLines decodes one JSON value per line.
func decodeLines[T any](out []byte) ([]T, error) {
	var res []T
	for _, l := range lines(out) {
		var v T
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return nil, fmt.Errorf("decode jj output %q: %w", l, err)
		}
		res = append(res, v)
	}
	return res, nil
}
