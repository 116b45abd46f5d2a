// Package conflictcli holds the conflict commands shared by jj-kaisen and
// jj-openspec: conflicts, resolve, and the hidden merge-tool that resolve
// registers with jj for one call. Commands parse flags, call the conflict
// package, and render its report.
package conflictcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
)

// Commands returns conflicts, resolve and the hidden merge-tool.
func Commands() []*cli.Command { return CommandsWith(Options{}) }

// TextConflict is a working-copy file whose text holds conflict markers
// that jj does not record as a conflict (as `jj openspec rebase` writes
// them).
type TextConflict struct {
	Path  string `json:"path"` // repository-relative
	Hunks int    `json:"hunks"`
	Line  int    `json:"line"` // first opening marker
}

// Options adapt the shared commands to a binary.
type Options struct {
	// TextMarkers, when set, lists the text conflicts of the workspace at
	// root; conflicts reports them when it looks at @.
	TextMarkers func(root string) ([]TextConflict, error)
}

// CommandsWith returns conflicts, resolve and the hidden merge-tool,
// adapted by opts.
func CommandsWith(opts Options) []*cli.Command {
	return []*cli.Command{conflictsCommand(opts), resolveCommand(), mergeToolCommand()}
}

func open(c *cli.Context) (*jjx.Repo, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return jjx.Open(c.Context, dir)
}

// repoPath turns a path given on the command line into a repository path:
// relative paths are taken from the current directory when it lies in the
// workspace, else from the workspace root.
func repoPath(root, p string) (string, error) {
	abs := p
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		if rel, err := filepath.Rel(root, wd); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			abs = filepath.Join(wd, p)
		} else {
			abs = filepath.Join(root, p)
		}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q is outside the workspace %s", p, root)
	}
	return filepath.ToSlash(rel), nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
