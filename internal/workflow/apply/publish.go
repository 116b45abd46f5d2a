package apply

import (
	"context"
	"path/filepath"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/forge"
	"github.com/specstack/specstack/internal/xec"
)

// CheckPublish checks, before any worker runs, what publishing plan p
// needs: nothing with --no-push; gh-specstack for the push; for the pull
// request also a GitHub repository (GH_REPO or origin) and a token, by
// `gh specstack pr --check` (no push, no request). A gap is exit 7
// naming it and the flags that do without it.
func CheckPublish(ctx context.Context, dir string, p *Plan) error {
	if p.NoPush {
		return nil
	}
	if prog := forge.Program(); !filepath.IsAbs(prog) {
		if _, err := xec.LookPath(prog); err != nil {
			return forge.ErrNoProgram()
		}
	}
	if p.NoPR {
		return nil
	}
	var v struct {
		Repository string `json:"repository"`
	}
	err := forge.Run(ctx, dir, nil, nil, &v, "pr", "--check", "--", p.Bookmark)
	switch exitcode.Of(err) {
	case exitcode.OK, exitcode.Interrupted:
		return err
	}
	return exitcode.New(exitcode.Missing, "apply: the pull request cannot be opened: %v; nothing was run. Pass --no-pr to push without a pull request, or --no-push (or set [openspec] pr = false)", err)
}

// PRView is the pull request apply opened or updated (forge's).
type PRView = forge.PRView
