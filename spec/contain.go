package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec/internal/jstext"
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
// *LinkError wrapping ErrOutside, and so is p itself outside Dir. The walk
// is internal/confine's, the one confinement of every reader.
func (r Root) Resolve(p string) (string, error) {
	rel, err := filepath.Rel(r.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &LinkError{Link: p, Target: p, Bound: r.realBound()}
	}
	real, err := confine.Within(r.bound(), r.Dir, rel)
	if esc := (*confine.EscapeError)(nil); errors.As(err, &esc) {
		return "", &LinkError{Link: esc.Link, Target: esc.Resolved, Bound: r.realBound()}
	}
	return real, err
}

// realBound is Bound with every link in it followed, for messages.
func (r Root) realBound() string {
	if b, err := filepath.EvalSymlinks(r.bound()); err == nil {
		return b
	}
	return r.bound()
}

// checkTree resolves every symbolic link under dir (not following
// symlinked directories, which Resolve judges as a whole): the first that
// leaves Bound is a *LinkError.
func (r Root) checkTree(dir string) error {
	_, err := r.treeLinks(dir)
	return err
}

// treeLinks is checkTree, also saying whether any link sits under dir.
func (r Root) treeLinks(dir string) (linked bool, err error) {
	real, err := r.Resolve(dir)
	if err != nil {
		return false, err
	}
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		linked = true
		rel, _ := filepath.Rel(real, p)
		_, err = r.Resolve(filepath.Join(dir, rel))
		return err
	})
	return linked, err
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

// ReadText is ReadFile as OpenSpec reads its files: as UTF-8, each
// ill-formed sequence read as U+FFFD (jstext.Decode), so what is shown,
// validated and written back is what OpenSpec shows, validates and writes.
// The verbs that keep a file's bytes (tasks tick, drift) read with ReadFile.
func (r Root) ReadText(p string) ([]byte, error) {
	b, err := r.ReadFile(p)
	return jstext.Decode(b), err
}
