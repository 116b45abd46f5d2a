package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// InitConfig is the openspec/config.yaml `openspec init` (1.13) writes,
// byte for byte (the parity suite checks it against the real CLI).
const InitConfig = `schema: spec-driven

# Project context (optional)
# This is shown to AI when creating artifacts.
# Add your tech stack, conventions, style guides, domain knowledge, etc.
# Example:
#   context: |
#     Tech stack: TypeScript, React, Node.js
#     We use conventional commits
#     Domain: e-commerce platform

# Per-artifact rules (optional)
# Add custom rules for specific artifacts.
# Example:
#   rules:
#     proposal:
#       - Keep proposals under 500 words
#       - Always include a "Non-goals" section
#     tasks:
#       - Break tasks into chunks of max 2 hours

# Per-operation guidance (optional)
# Add advisory guidance for how apply and archive work should be conducted.
# This is separate from artifact rules above.
# Example:
#   operations:
#     apply:
#       guidance:
#         - Keep test summaries concise
#     archive:
#       guidance:
#         - Summarize the archive outcome before finishing
`

// ErrTreeExists reports that dir already holds an openspec/ entry.
var ErrTreeExists = errors.New("an OpenSpec tree is already there")

// InitLayout lays out the spec tree `openspec init` lays out in dir:
// openspec/config.yaml, openspec/specs/.gitkeep and
// openspec/changes/archive/.gitkeep (the agent-tool files `openspec init
// --tools …` adds are not part of the tree). It never touches an existing
// openspec/ (of any kind): ErrTreeExists. The tree is built beside it and
// renamed into place in one step that refuses to replace anything, so a
// kill -9 leaves either no tree or the whole one (and at worst a
// .openspec-init-* folder to delete).
func InitLayout(dir string) (string, error) {
	target := filepath.Join(dir, "openspec")
	if _, err := os.Lstat(target); err == nil {
		return target, fmt.Errorf("%s: %w", target, ErrTreeExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return target, fmt.Errorf("check %s: %w", target, err)
	}
	tmp, err := os.MkdirTemp(dir, ".openspec-init-")
	if err != nil {
		return target, fmt.Errorf("make the tree in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; the leftovers otherwise
	if err := os.Chmod(tmp, 0o755); err != nil {
		return target, err
	}
	files := []struct{ path, body string }{
		{"config.yaml", InitConfig},
		{"specs/.gitkeep", ""},
		{"changes/archive/.gitkeep", ""},
	}
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return target, fmt.Errorf("make %s: %w", filepath.Dir(p), err)
		}
		if err := writeSynced(p, f.body); err != nil {
			return target, err
		}
	}
	if err := renameNoReplace(tmp, target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return target, fmt.Errorf("%s: %w", target, ErrTreeExists)
		}
		return target, fmt.Errorf("move the new tree to %s: %w", target, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return target, nil
}

func writeSynced(path, body string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
