// Package repo finds the repository a command runs in and where its
// ledgers live, by reading the file system only (no processes).
package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Kind is the kind of repository found.
type Kind string

const (
	KindJJ          Kind = "jj"           // a jj workspace backed by a non-colocated git store
	KindJJColocated Kind = "jj-colocated" // a jj workspace whose root also holds .git
	KindGit         Kind = "git"          // a plain git repository or worktree
)

// ErrNotFound is returned when no repository encloses the directory.
var ErrNotFound = errors.New("not inside a jj or git repository")

// Repo is a repository found on disk.
type Repo struct {
	Kind Kind
	Root string // workspace (jj) or work tree (git) root
	// MetaDir is where specstack keeps its state: <root>/.jj for jj,
	// the git common dir for git. Nothing under it is ever snapshotted.
	MetaDir string
}

// IsJJ reports whether the repository is a jj workspace.
func (r *Repo) IsJJ() bool { return r.Kind == KindJJ || r.Kind == KindJJColocated }

// LedgerDir is the directory of binary's ledgers.
func (r *Repo) LedgerDir(binary string) string {
	return filepath.Join(r.MetaDir, "specstack", binary)
}

// Find walks up from dir to the nearest jj workspace or git repository.
// A jj workspace wins over an enclosing git repository.
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("repository directory: %w", err)
	}
	for d := abs; ; {
		if isDir(filepath.Join(d, ".jj")) && exists(filepath.Join(d, ".jj", "repo")) {
			r := &Repo{Kind: KindJJ, Root: d, MetaDir: filepath.Join(d, ".jj")}
			if exists(filepath.Join(d, ".git")) {
				r.Kind = KindJJColocated
			}
			return r, nil
		}
		if gitPath := filepath.Join(d, ".git"); isGitEntry(gitPath) {
			common, err := gitCommonDir(gitPath)
			if err != nil {
				return nil, err
			}
			return &Repo{Kind: KindGit, Root: d, MetaDir: common}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w (run it inside one, or pass --repo DIR)", abs, ErrNotFound)
		}
		d = parent
	}
}

// gitCommonDir resolves a .git entry (a directory, or a file naming the
// worktree's git dir) to the repository's common directory.
func gitCommonDir(gitPath string) (string, error) {
	_, common, err := resolveGitEntry(gitPath)
	return common, err
}

// GitDirs returns the git directory of the work tree or bare repository
// at dir, and its common directory (the same but for a linked worktree,
// whose refs and objects live in the main repository's); ok is false
// when dir is neither (its parents are not searched).
func GitDirs(dir string) (gitDir, common string, ok bool, err error) {
	if gitPath := filepath.Join(dir, ".git"); exists(gitPath) {
		gitDir, common, err = resolveGitEntry(gitPath)
		return gitDir, common, err == nil, err
	}
	if isFile(filepath.Join(dir, "HEAD")) && isDir(filepath.Join(dir, "objects")) && isDir(filepath.Join(dir, "refs")) {
		return dir, dir, true, nil // a bare repository
	}
	return "", "", false, nil
}

// resolveGitEntry resolves a .git entry (a directory, or a file naming
// the worktree's git dir) to the git dir and the common directory.
func resolveGitEntry(gitPath string) (gitDir, common string, err error) {
	if isDir(gitPath) {
		return gitPath, gitPath, nil
	}
	data, err := os.ReadFile(gitPath)
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", gitPath, err)
	}
	line := strings.TrimSpace(string(data))
	gitDir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", "", fmt.Errorf("%s: not a gitdir file", gitPath)
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(gitPath), gitDir)
	}
	common = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	}
	return filepath.Clean(gitDir), filepath.Clean(common), nil
}

// isGitEntry reports whether p, a .git entry, is a repository's: a file
// (a linked worktree's gitdir pointer) or a directory holding HEAD. An
// empty .git directory is not one: Codex's sandbox makes /tmp/.git as a
// mount target while it runs, and a project under /tmp must not take
// /tmp for its repository.
func isGitEntry(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	return exists(filepath.Join(p, "HEAD"))
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
