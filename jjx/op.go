package jjx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/xec"
)

// Operation is one entry of the operation log.
type Operation struct {
	ID          string   `json:"id"`
	Parents     []string `json:"parents"`
	Description string   `json:"description"`
	Time        struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
	} `json:"time"`
	IsSnapshot    bool   `json:"is_snapshot"`
	WorkspaceName string `json:"workspace_name"`
	Attributes    struct {
		Args string `json:"args"`
	} `json:"attributes"`
}

// OpLog returns the newest n operations (all when n <= 0), newest first.
func (r *Repo) OpLog(ctx context.Context, n int) ([]Operation, error) {
	args := []string{"op", "log", "--no-graph", "-T", `json(self) ++ "\n"`}
	if n > 0 {
		args = append(args, "-n", itoa(n))
	}
	out, err := r.call(ctx, args...)
	if err != nil {
		return nil, err
	}
	return decodeLines[Operation](out)
}

// OpHead returns the current operation's ID (after snapshotting the
// working copy, so it covers every edit on disk).
func (r *Repo) OpHead(ctx context.Context) (string, error) {
	out, err := r.call(ctx, "op", "log", "-n1", "--no-graph", "-T", `id ++ "\n"`)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// NewestOp reads the newest operation as jj recorded it, without
// snapshotting the working copy (which would make a newer one).
func (r *Repo) NewestOp(ctx context.Context) (Operation, error) {
	out, err := r.callRead(ctx, "op", "log", "-n1", "--no-graph", "-T", `json(self) ++ "\n"`)
	if err != nil {
		return Operation{}, err
	}
	ops, err := decodeLines[Operation](out)
	if err != nil {
		return Operation{}, err
	}
	if len(ops) != 1 {
		return Operation{}, fmt.Errorf("jj op log -n1 listed %d operations", len(ops))
	}
	return ops[0], nil
}

// OpRestore restores the whole repository to operation op. A stale
// working copy (another workspace's operation rewrote its commit) is
// first put back where it was last updated, without a snapshot, so the
// restore checks op's files out over files jj knows (and snapshots what
// was edited since).
func (r *Repo) OpRestore(ctx context.Context, op string) error {
	_, err := r.call(ctx, "op", "restore", op)
	if since := StaleSince(err); since != "" {
		if _, rerr := r.callRead(ctx, "op", "restore", since); rerr != nil {
			return fmt.Errorf("put the stale working copy back at operation %s: %w", since, rerr)
		}
		_, err = r.call(ctx, "op", "restore", op)
	}
	return err
}

// staleSince finds the operation of jj's stale-working-copy error.
var staleSince = lazyregexp.New(`working copy is stale \(not updated since operation ([0-9a-f]+)\)`)

// StaleSince returns, when err is ErrStale, the operation at which the
// working copy was last updated; "" otherwise.
func StaleSince(err error) string {
	var xe *xec.Error
	if !errors.Is(err, ErrStale) || !errors.As(err, &xe) {
		return ""
	}
	if m := staleSince.FindStringSubmatch(xe.Stderr); m != nil {
		return m[1]
	}
	return ""
}

// OpsSince reads the operations after op (op itself excluded), newest
// first, at most limit of them, without snapshotting the working copy
// (a stale one included).
func (r *Repo) OpsSince(ctx context.Context, op string, limit int) ([]Operation, error) {
	out, err := r.callRead(ctx, "op", "log", "--no-graph", "-n", itoa(limit), "-T", `json(self) ++ "\n"`)
	if err != nil {
		return nil, err
	}
	ops, err := decodeLines[Operation](out)
	if err != nil {
		return nil, err
	}
	for i, o := range ops {
		if strings.HasPrefix(o.ID, op) {
			return ops[:i], nil
		}
	}
	return ops, nil
}

// WorkingCopyAt is the commit ID of workspace's working copy as operation
// op recorded it; "" when it had none then.
func (r *Repo) WorkingCopyAt(ctx context.Context, op, workspace string) (string, error) {
	out, err := r.callRead(ctx, "--at-op", op, "log", "--no-graph", "-r", "present("+Quote(workspace)+"@)", "-T", `commit_id ++ "\n"`)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}

// ChangesSince lists, newest first, the visible revisions of changes
// operation op did not know: work that restoring op would hide. own is a
// revset of revisions left out (a run's own); so are empty revisions
// with no description (a workspace's fresh working copy), whose loss
// loses nothing.
func (r *Repo) ChangesSince(ctx context.Context, op, own string) ([]Commit, error) {
	out, err := r.callRead(ctx, "--at-op", op, "log", "--no-graph", "-r", "visible_heads()", "-T", `commit_id ++ "\n"`)
	if err != nil {
		return nil, err
	}
	then := Union(lines(out)...)
	// Without a snapshot: a stale working copy must not stop the read,
	// and its files are not changes.
	out, err = r.callRead(ctx, "log", "--no-graph", "-r", "(all() ~ "+Ancestors(then)+") ~ ("+own+") ~ (empty() & description(exact:\"\"))", "-T", logTemplate)
	if err != nil {
		return nil, err
	}
	news, err := decodeLog(out)
	if err != nil || len(news) == 0 {
		return nil, err
	}
	// A change op knew that was rewritten since (a squash into @) is
	// not new work.
	ids := make([]string, len(news))
	for i, c := range news {
		ids[i] = c.ChangeID
	}
	out, err = r.callRead(ctx, "--at-op", op, "log", "--no-graph", "-r", PresentUnion(ids...), "-T", `change_id ++ "\n"`)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, id := range lines(out) {
		known[id] = true
	}
	var res []Commit
	for _, c := range news {
		if !known[c.ChangeID] {
			res = append(res, c)
		}
	}
	return res, nil
}
