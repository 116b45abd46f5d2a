package jjx

import (
	"bytes"
	"context"
	"strings"

	"github.com/specstack/specstack/internal/xec"
)

// SquashInto squashes like Squash and also reports whether jj said the
// destination (or the working copy it updated) is conflicted: jj marks a
// conflicted commit "(conflict)" in the summary it prints. A false answer
// is a fast path only; callers that must be sure check ConflictedFiles.
func (r *Repo) SquashInto(ctx context.Context, o SquashOptions) (conflicted bool, err error) {
	args := o.args()
	if !r.held {
		exclusive.RLock()
		defer exclusive.RUnlock()
	}
	var stderr bytes.Buffer
	err = xec.Run(ctx, xec.Cmd{Name: r.Bin, Args: append(r.globalArgs(), args...), Dir: r.Root, Env: r.Env, Stderr: &stderr, Timeout: CallTimeout})
	if err != nil {
		return false, &Error{Op: args, Err: err}
	}
	return strings.Contains(stderr.String(), "conflict"), nil
}
