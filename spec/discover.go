package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SpecFile is a spec.md found under a specs directory; ID is its
// capability path ("auth" or "platform/auth").
type SpecFile struct {
	ID   string
	Path string
}

// DiscoverSpecs finds every <capability path>/spec.md under root (not one
// at the root itself), skipping dot entries and not following symlinked
// directories, sorted by ID. A missing root is empty.
func DiscoverSpecs(root string) ([]SpecFile, error) {
	var out []SpecFile
	err := walkFiles(root, func(p string, segs []string, e fs.DirEntry) error {
		if e.Name() != "spec.md" || len(segs) == 0 {
			return nil
		}
		if e.Type().IsRegular() {
			out = append(out, SpecFile{ID: strings.Join(segs, "/"), Path: p})
		} else if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out = append(out, SpecFile{ID: strings.Join(segs, "/"), Path: p})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// walkFiles calls visit for every non-directory entry under root with the
// directory names leading to it, skipping dot entries and not following
// symlinked directories. A missing root (or one that is a file) is empty.
func walkFiles(root string, visit func(path string, segs []string, e fs.DirEntry) error) error {
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

// unreadDelta is a markdown file with delta sections that archive never
// reads (not a capability's spec.md).
type unreadDelta struct {
	Path     string // relative to specs/, slash-separated
	Expected string
}

func findUnreadDeltas(root string) ([]unreadDelta, error) {
	var out []unreadDelta
	err := walkFiles(root, func(p string, segs []string, e fs.DirEntry) error {
		name := e.Name()
		if name == "spec.md" || !strings.HasSuffix(strings.ToLower(name), ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if fi, serr := os.Stat(p); serr == nil && !fi.Mode().IsRegular() {
				return nil
			}
			return fmt.Errorf("read %q: %w", p, err)
		}
		if !ParseDelta(string(b)).HasSections() {
			return nil
		}
		capability := strings.Join(segs, "/")
		if len(segs) == 0 {
			capability = name[:len(name)-3]
		}
		out = append(out, unreadDelta{Path: strings.Join(append(append([]string(nil), segs...), name), "/"), Expected: capability + "/spec.md"})
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
