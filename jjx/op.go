package jjx

import (
	"context"
	"fmt"
	"strings"
	"time"
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

// OpRestore restores the whole repository to operation op.
func (r *Repo) OpRestore(ctx context.Context, op string) error {
	_, err := r.call(ctx, "op", "restore", op)
	return err
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
