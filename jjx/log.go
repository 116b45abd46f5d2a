package jjx

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signature is an author or committer.
type Signature struct {
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Timestamp time.Time `json:"timestamp"`
}

// Commit is one revision as jj's json(self) template prints it, plus a
// few derived fields.
type Commit struct {
	CommitID    string    `json:"commit_id"`
	Parents     []string  `json:"parents"`
	ChangeID    string    `json:"change_id"`
	Description string    `json:"description"`
	Author      Signature `json:"author"`
	Committer   Signature `json:"committer"`
	Empty       bool      `json:"empty"`
	Conflict    bool      `json:"conflict"`
	Divergent   bool      `json:"divergent"`
}

const logTemplate = `"{\"c\":" ++ json(self) ++ ",\"empty\":" ++ json(empty) ++ ",\"conflict\":" ++ json(conflict) ++ ",\"divergent\":" ++ json(divergent) ++ "}\n"`

type logLine struct {
	C         Commit `json:"c"`
	Empty     bool   `json:"empty"`
	Conflict  bool   `json:"conflict"`
	Divergent bool   `json:"divergent"`
}

// Log returns the revisions of revset, newest first.
func (r *Repo) Log(ctx context.Context, revset string) ([]Commit, error) {
	return r.logWith(ctx, revset, logTemplate)
}

// logWith runs jj log over revset with tmpl, a template printing one
// logLine per revision (or nothing, for a revision it filters out).
func (r *Repo) logWith(ctx context.Context, revset, tmpl string) ([]Commit, error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", revset, "-T", tmpl)
	if err != nil {
		return nil, err
	}
	return decodeLog(out)
}

// decodeLog reads jj log's output of logTemplate.
func decodeLog(out []byte) ([]Commit, error) {
	ls, err := decodeLines[logLine](out)
	if err != nil {
		return nil, err
	}
	res := make([]Commit, len(ls))
	for i, l := range ls {
		c := l.C
		c.Empty, c.Conflict, c.Divergent = l.Empty, l.Conflict, l.Divergent
		res[i] = c
	}
	return res, nil
}

// ErrNotOneRevision reports a revset that names no revision or several
// where one is needed.
var ErrNotOneRevision = errors.New("want exactly one")

// One returns the single revision rev names; zero or several is an
// ErrNotOneRevision.
func (r *Repo) One(ctx context.Context, rev string) (Commit, error) {
	cs, err := r.Log(ctx, rev)
	if err != nil {
		return Commit{}, err
	}
	if len(cs) != 1 {
		return Commit{}, fmt.Errorf("revision %q names %d revisions, %w", rev, len(cs), ErrNotOneRevision)
	}
	return cs[0], nil
}

// commitIDsOf returns the full commit IDs of the union of revsets, newest
// first; each revset is parsed on its own.
func (r *Repo) commitIDsOf(ctx context.Context, revsets []string) ([]string, error) {
	args := []string{"log", "--no-graph", "-T", `commit_id ++ "\n"`}
	for _, rev := range revsets {
		args = append(args, "-r", rev)
	}
	out, err := r.call(ctx, args...)
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// ChangeIDs returns the full change IDs of revset, newest first.
func (r *Repo) ChangeIDs(ctx context.Context, revset string) ([]string, error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", revset, "-T", `change_id ++ "\n"`)
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// CommitIDs returns the full commit IDs of revset, newest first.
func (r *Repo) CommitIDs(ctx context.Context, revset string) ([]string, error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", revset, "-T", `commit_id ++ "\n"`)
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// FileChange is one file a revision changed, with its line counts.
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, modified, removed, copied, renamed
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Files returns the files rev changed against its parents, with line counts.
func (r *Repo) Files(ctx context.Context, rev string) ([]FileChange, error) {
	tmpl := `self.diff().stat().files().map(|f| json(f.path()) ++ "\t" ++ f.status() ++ "\t" ++ f.lines_added() ++ "\t" ++ f.lines_removed()).join("\n") ++ "\n"`
	out, err := r.call(ctx, "log", "--no-graph", "-r", rev, "-T", tmpl)
	if err != nil {
		return nil, err
	}
	var res []FileChange
	for _, l := range lines(out) {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("decode jj file stat %q", l)
		}
		path, err := strconv.Unquote(f[0])
		if err != nil {
			return nil, fmt.Errorf("decode jj path %q: %w", f[0], err)
		}
		a, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("decode jj lines added %q: %w", l, err)
		}
		d, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("decode jj lines removed %q: %w", l, err)
		}
		res = append(res, FileChange{Path: path, Status: f[1], Added: a, Removed: d})
	}
	return res, nil
}

// Describe sets rev's description.
func (r *Repo) Describe(ctx context.Context, rev, message string) error {
	_, err := r.call(ctx, "describe", "-r", rev, "-m", message)
	return err
}

// New creates a new change on parents (default @) and returns its change ID.
// With edit false it is created without moving the working copy.
func (r *Repo) New(ctx context.Context, message string, edit bool, parents ...string) (string, error) {
	args := []string{"new", "-m", message}
	if !edit {
		args = append(args, "--no-edit")
	}
	args = append(args, parents...)
	if _, err := r.call(ctx, args...); err != nil {
		return "", err
	}
	if edit {
		c, err := r.One(ctx, "@")
		return c.ChangeID, err
	}
	// jj new --no-edit prints the change on stderr only; the newest child
	// of the parents with that description is it. The parents are
	// resolved to commit IDs first, so no caller's revset text is pasted
	// into the expression.
	if len(parents) == 0 {
		parents = []string{"@"}
	}
	ids, err := r.commitIDsOf(ctx, parents)
	if err != nil {
		return "", err
	}
	desc := message
	if desc != "" {
		desc += "\n"
	}
	rev := "latest(children(" + strings.Join(ids, "|") + ") & description(exact:" + Quote(desc) + "))"
	c, err := r.One(ctx, rev)
	return c.ChangeID, err
}

// SquashOptions says how to squash.
type SquashOptions struct {
	From, Into string // revisions; empty means jj's defaults (@ and @-)
	// Message sets the combined description; when empty the destination's
	// description is kept, so jj never opens an editor.
	Message string
	Paths   []string // only these paths, when set
}

// Squash moves changes non-interactively.
func (r *Repo) Squash(ctx context.Context, o SquashOptions) error {
	_, err := r.call(ctx, o.args()...)
	return err
}

func (o SquashOptions) args() []string {
	args := []string{"squash"}
	if o.From != "" {
		args = append(args, "--from", o.From)
	}
	if o.Into != "" {
		args = append(args, "--into", o.Into)
	}
	if o.Message != "" {
		args = append(args, "-m", o.Message)
	} else {
		args = append(args, "--use-destination-message")
	}
	if len(o.Paths) > 0 {
		args = append(args, "--")
		args = append(args, o.Paths...)
	}
	return args
}

// Abandon abandons the revisions.
func (r *Repo) Abandon(ctx context.Context, revs ...string) error {
	_, err := r.call(ctx, append([]string{"abandon"}, revs...)...)
	return err
}

// Edit makes rev the working-copy revision.
func (r *Repo) Edit(ctx context.Context, rev string) error {
	_, err := r.call(ctx, "edit", rev)
	return err
}

// Snapshot records the working copy. Every jj command that does not pass
// --ignore-working-copy snapshots first; an empty log of @ is the cheapest
// one on every supported version (`jj debug snapshot` is deprecated and
// `jj util snapshot` is recent).
func (r *Repo) Snapshot(ctx context.Context) error {
	_, err := r.call(ctx, "log", "--no-graph", "-r", "@", "-T", `""`)
	return err
}

// FileShow returns the content of path at rev.
func (r *Repo) FileShow(ctx context.Context, rev, path string) ([]byte, error) {
	return r.call(ctx, "file", "show", "-r", rev, "--", rootFile(path))
}

// rootFile is the fileset naming exactly the repository path p.
func rootFile(p string) string { return "root-file:" + Quote(p) }

// Trunk returns the change ID of trunk() and whether it is root(): jj's
// trunk() falls back to root() in a repository with no remote trunk
// bookmark (main, master or trunk).
func (r *Repo) Trunk(ctx context.Context) (id string, isRoot bool, err error) {
	out, err := r.call(ctx, "log", "--no-graph", "-r", "trunk()", "-T", `change_id ++ " " ++ self.root() ++ "\n"`)
	if err != nil {
		return "", false, err
	}
	ls := lines(out)
	if len(ls) != 1 {
		return "", false, fmt.Errorf("trunk() names %d revisions, want 1 (set revset-aliases.\"trunk()\")", len(ls))
	}
	id, root, ok := strings.Cut(ls[0], " ")
	if !ok {
		return "", false, fmt.Errorf("decode jj output %q", ls[0])
	}
	return id, root == "true", nil
}
