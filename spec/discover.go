package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/specstack/specstack/internal/regfile"
)

// SpecFile is a spec.md found under a specs directory; ID is its
// capability path ("auth" or "platform/auth").
type SpecFile struct {
	ID   string
	Path string
}

// DiscoverSpecs finds every <capability path>/spec.md under root (not one
// at the root itself), skipping dot entries and not following symlinked
// directories, sorted by ID. A missing root is empty. A spec.md that is
// not a regular file (a FIFO, socket, device, or a directory where a
// capability's spec file belongs) is an error wrapping
// regfile.ErrNotRegular; it is never opened. A dangling symlink is skipped,
// as OpenSpec skips it.
func DiscoverSpecs(root string) ([]SpecFile, error) {
	return discoverSpecs(root, true)
}

// discoverSpecs is DiscoverSpecs; with strict false, as OpenSpec 1.13.2's
// discovery (what list reads): a directory named spec.md is walked like
// any other and a spec.md that is not a regular file is skipped.
func discoverSpecs(root string, strict bool) ([]SpecFile, error) {
	var out []SpecFile
	err := walkTree(root, strict, func(p string, segs []string, e fs.DirEntry) error {
		if e.Name() != "spec.md" || len(segs) == 0 {
			return nil
		}
		if _, err := regfile.Check(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) && e.Type()&fs.ModeSymlink != 0 || !strict && errors.Is(err, regfile.ErrNotRegular) {
				return nil
			}
			return err
		}
		out = append(out, SpecFile{ID: strings.Join(segs, "/"), Path: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// hasRootSpecFile reports whether specsDir holds a spec.md file of its own
// (which OpenSpec never merges). A directory of that name is a capability
// folder, not a file; anything else that is not a regular file is an error
// wrapping regfile.ErrNotRegular.
func hasRootSpecFile(specsDir string) (bool, error) {
	fi, err := regfile.Check(filepath.Join(specsDir, "spec.md"))
	switch {
	case err == nil:
		return true, nil
	case fi != nil && fi.IsDir(), errors.Is(err, fs.ErrNotExist), errors.Is(err, syscallENOTDIR):
		return false, nil
	case errors.Is(err, regfile.ErrNotRegular):
		return false, err
	}
	return false, nil
}

// walkFiles calls visit for every non-directory entry under root with the
// directory names leading to it, skipping dot entries and not following
// symlinked directories. A missing root (or one that is a file) is empty.
// A directory named spec.md below the root stands where a capability's
// spec file belongs: it is an error wrapping regfile.ErrNotRegular.
func walkFiles(root string, visit func(path string, segs []string, e fs.DirEntry) error) error {
	return walkTree(root, true, visit)
}

// walkTree is walkFiles; with strict false a directory named spec.md is
// walked like any other, as OpenSpec walks it.
func walkTree(root string, strict bool, visit func(path string, segs []string, e fs.DirEntry) error) error {
	var walk func(dir string, segs []string) error
	walk = func(dir string, segs []string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
				return nil
			}
			return fmt.Errorf("read %q: %w", dir, err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				if strict && e.Name() == "spec.md" && len(segs) > 0 {
					return &regfile.Error{Path: p, Mode: fs.ModeDir}
				}
				if err := walk(p, append(append([]string(nil), segs...), e.Name())); err != nil {
					return err
				}
				continue
			}
			if err := visit(p, segs, e); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, nil)
}

// findUnreadDeltas lists the markdown files under root that carry delta
// sections but are not a capability's spec.md. A markdown file that is not
// a regular file is an error wrapping regfile.ErrNotRegular.
func findUnreadDeltas(root string) ([]UnreadDelta, error) {
	var out []UnreadDelta
	err := walkFiles(root, func(p string, segs []string, e fs.DirEntry) error {
		name := e.Name()
		if name == "spec.md" || !strings.HasSuffix(strings.ToLower(name), ".md") {
			return nil
		}
		b, err := regfile.Read(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !ParseDelta(string(b)).HasSections() {
			return nil
		}
		capability := strings.Join(segs, "/")
		if len(segs) == 0 {
			capability = name[:len(name)-3]
		}
		out = append(out, UnreadDelta{Path: strings.Join(append(append([]string(nil), segs...), name), "/"), Expected: capability + "/spec.md"})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// hasAnyFileUnder reports whether a non-dot file exists under dir.
func hasAnyFileUnder(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %q: %w", dir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
			return true, nil
		}
		if e.IsDir() {
			if ok, err := hasAnyFileUnder(filepath.Join(dir, e.Name())); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}
