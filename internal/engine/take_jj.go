package engine

import (
	"context"
	"fmt"

	"github.com/specstack/specstack/gitx"
	"github.com/specstack/specstack/jjx"
)

// Taker is TakeResult for workspace ws of the git store gitDir, as a
// RemoteJob takes a job's result (RemoteJob.Take).
func (b *JJBackend) Taker(ws Workspace, gitDir string) func(ctx context.Context, job, base, result string) error {
	return func(ctx context.Context, job, base, result string) error {
		return b.TakeResult(ctx, ws, gitDir, TakeBranch(job), base, result)
	}
}

// TakeResult brings result, a commit of the git store gitDir that a
// remote worker made on base (the files workspace ws holds), into ws:
// imported into jj through a temporary branch (refs/heads/NAME) and
// squashed into ws's @, so the worker's commit is in the history of @'s
// change (jj evolog) and its changes are in @. It is idempotent: when @
// already holds result's files (a process killed after the squash) it
// only removes the branch. No other jj command of this process runs
// meanwhile (jjx.Repo.Exclusive says why).
func (b *JJBackend) TakeResult(ctx context.Context, ws Workspace, gitDir, name, base, result string) error {
	g := &gitx.Repo{Dir: gitDir}
	if err := g.CheckMetadata(ctx, base, result); err != nil {
		return err
	}
	want, err := g.Tree(ctx, result)
	if err != nil {
		return err
	}
	ref := "refs/heads/" + name
	return b.Repo.At(ws.Path).Exclusive(func(r *jjx.Repo) error {
		cs, err := logStrict(ctx, r, "@", "")
		if err != nil {
			return fmt.Errorf("read workspace %s: %w", ws.Path, err)
		}
		if len(cs) != 1 {
			return fmt.Errorf("workspace %s: @ names %d revisions", ws.Path, len(cs))
		}
		have, err := g.Tree(ctx, cs[0].CommitID)
		if err != nil {
			return err
		}
		if have != want {
			if err := g.UpdateRef(ctx, ref, result); err != nil {
				return err
			}
			if err := r.GitImport(ctx); err != nil {
				return fmt.Errorf("import %s: %w", short(result), err)
			}
			if err := r.Squash(ctx, jjx.SquashOptions{From: result, Into: "@"}); err != nil {
				return fmt.Errorf("squash %s into workspace %s: %w", short(result), ws.Path, err)
			}
		}
		if err := g.DeleteRef(ctx, ref); err != nil {
			return err
		}
		return r.BookmarkForget(ctx, name)
	})
}
