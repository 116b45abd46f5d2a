package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/regfile"
)

// ErrOutside reports a path that leads, through a symbolic link, out of
// the directory a command may touch (Root.Bound).
var ErrOutside = errors.New("leads outside the repository")

// LinkError names a symbolic link that leaves Root.Bound.
type LinkError struct {
	Link   string // the link, relative to the project root
	Target string // where it leads, resolved
	Bound  string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s, outside the repository %s: %v; jj-openspec reads and writes nothing through it (replace the link with the files it points to)",
		e.Link, e.Target, e.Bound, ErrOutside)
}

func (e *LinkError) Unwrap() error { return ErrOutside }

// bound is the directory no path of r may leave: Bound, else Dir.
func (r Root) bound() string {
	if r.Bound != "" {
		return r.Bound
	}
	return r.Dir
}

// Show names p (a path under Dir) for messages: relative, with slashes.
func (r Root) Show(p string) string {
	rel, err := filepath.Rel(r.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return filepath.ToSlash(rel)
}

// Resolve returns the real path of p, a path under Dir, with every
// symbolic link along it followed; the parts that do not exist yet are kept
// as they are. A link that leads out of Bound (resolved the same way) is a
// *LinkError wrapping ErrOutside, and so is p itself outside Dir.
func (r Root) Resolve(p string) (string, error) {
	bound, err := filepath.EvalSymlinks(r.bound())
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", r.bound(), err)
	}
	rel, err := filepath.Rel(r.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &LinkError{Link: p, Target: p, Bound: bound}
	}
	cur, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", r.Dir, err)
	}
	if !inside(cur, bound) {
		return "", &LinkError{Link: r.Dir, Target: cur, Bound: bound}
	}
	if rel == "." {
		return cur, nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
			return filepath.Join(append([]string{cur}, parts[i:]...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			// dangling (or looping): judge where it points, as written
			target, rerr := os.Readlink(next)
			if rerr != nil {
				return "", fmt.Errorf("resolve %s: %w", p, rerr)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			real = filepath.Clean(target)
		}
		if !inside(real, bound) {
			return "", &LinkError{Link: filepath.ToSlash(filepath.Join(parts[:i+1]...)), Target: real, Bound: bound}
		}
		cur = real
	}
	return cur, nil
}

// inside reports whether p is dir or below it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkTree resolves every symbolic link under dir (not following
// symlinked directories, which Resolve judges as a whole): the first that
// leaves Bound is a *LinkError.
func (r Root) checkTree(dir string) error {
	real, err := r.Resolve(dir)
	if err != nil {
		return err
	}
	return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, _ := filepath.Rel(real, p)
		_, err = r.Resolve(filepath.Join(dir, rel))
		return err
	})
}

// ReadFile reads p, a path under Dir, refusing a symbolic link along it
// that leads out of Bound (a *LinkError) and anything but a regular file
// (regfile.ErrNotRegular).
func (r Root) ReadFile(p string) ([]byte, error) {
	real, err := r.Resolve(p)
	if err != nil {
		return nil, err
	}
	return regfile.Read(real)
}
