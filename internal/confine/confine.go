// Package confine keeps file access inside a repository: a repository
// path is resolved on disk component by component, following symbolic
// links only while they stay inside the root, and files are opened only
// when they are regular files.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// EscapeError is a path that is, or goes through, a symbolic link leading
// outside the repository (or a path that climbs out of it with "..").
type EscapeError struct {
	Root   string // the repository root
	Path   string // the path asked for, relative to Root
	Link   string // the link on the way, relative to Root ("..": no link)
	Target string // what the link points to, as written in it
	// Resolved is where the link leads, every link in it followed (as
	// written when it leads nowhere).
	Resolved string
}

func (e *EscapeError) Error() string {
	if e.Link == ".." {
		return fmt.Sprintf("%s: the path leaves the repository %s", e.Path, e.Root)
	}
	msg := fmt.Sprintf("%s is a symbolic link to %s, outside the repository %s", e.Link, e.Target, e.Root)
	if e.Link != e.Path {
		msg = e.Path + ": " + msg
	}
	return msg + ": refusing to follow it"
}

// Path returns where the slash-separated repository path rel really is
// under root: every symbolic link on the way is followed while it stays
// inside root. A link that leads out (or a ".." that climbs out) is an
// *EscapeError. Components that do not exist yet
// are joined as they are.
func Path(root, rel string) (string, error) {
	return Within(root, root, rel)
}

// Within is Path for rel taken from dir, a directory at or below root
// (through no link that leads out of root): the same walk, each link
// judged against root. A dir that resolves outside root is an
// *EscapeError naming dir as the link. A path on the way that is a
// file, not a directory, ends the walk as a missing part does.
func Within(root, dir, rel string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve repository root %s: %w", root, err)
	}
	escape := func(link, target, resolved string) error {
		return &EscapeError{Root: root, Path: rel, Link: link, Target: target, Resolved: resolved}
	}
	cur := realRoot
	if dir != root {
		if cur, err = filepath.EvalSymlinks(dir); err != nil {
			return "", fmt.Errorf("resolve %s: %w", dir, err)
		}
		if !inside(realRoot, cur) {
			return "", escape(dir, cur, cur)
		}
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			if cur == realRoot {
				return "", escape("..", "", "")
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		link := strings.Join(parts[:i+1], "/")
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%s: read link %s: %w", rel, link, err)
		}
		resolved, err := filepath.EvalSymlinks(next)
		if errors.Is(err, fs.ErrNotExist) {
			// dangling: judged by where it points, as written
			resolved = target
			if !filepath.IsAbs(resolved) {
				resolved = filepath.Join(cur, resolved)
			}
			resolved = filepath.Clean(resolved)
		} else if err != nil {
			return "", fmt.Errorf("%s: follow link %s: %w", rel, link, err)
		}
		if !inside(realRoot, resolved) {
			return "", escape(link, target, resolved)
		}
		cur = resolved
	}
	return cur, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RegularFile is Path for a file that is read or replaced: it must exist
// and be a regular file (not a directory, FIFO, socket or device), else
// the error is a *NotRegularError naming it.
func RegularFile(root, rel string) (string, error) {
	p, err := Path(root, rel)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", &NotRegularError{Path: rel, Mode: fi.Mode()}
	}
	return p, nil
}

// NotRegularError is a path that RegularFile refuses: it is not a regular
// file (a directory, FIFO, socket, device or symbolic link).
type NotRegularError struct {
	Path string      // the path asked for, relative to the root
	Mode fs.FileMode // what is there
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: refusing to open it", e.Path, kind(e.Mode))
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// RemoveUnder removes path and everything in it, only when it is strictly
// inside dir: a path that is dir itself, climbs out of it ("..", a
// sibling sharing its prefix), or reaches it through a symbolic link on
// the way is refused, naming both, and nothing is removed. For folders a
// ledger or record names (a workspace), which a damaged or hostile record
// could point anywhere. A path that does not exist is no error.
func RemoveUnder(dir, path string) error {
	dir, p := filepath.Clean(dir), filepath.Clean(path)
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is not inside %s: not removed (remove it yourself if it is yours)", path, dir)
	}
	// Every folder between dir and p must be a folder, not a link that
	// could lead elsewhere (p itself may be a link: RemoveAll removes the
	// link, not what it points to).
	parts := strings.Split(rel, string(filepath.Separator))
	cur := dir
	for _, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: %s on the way is %s, not a folder: not removed", path, cur, kind(fi.Mode()))
		}
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
