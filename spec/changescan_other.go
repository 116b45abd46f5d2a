//go:build !linux

package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// wholeDirReads is false: os.ReadDir reads every directory to its end.
func wholeDirReads(string) bool { return false }

// walkDir walks dir with os.ReadDir and os.Stat.
func (s *changeScan) walkDir(dir string, _ []byte) error { return s.walk(dir, true) }

func (s *changeScan) walk(dir string, top bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if top {
			s.names[e.Name()] = true
		}
		if e.IsDir() {
			if err := s.walk(p, false); err != nil {
				return err
			}
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		s.found(e.Name(), top, fileStat{regular: fi.Mode().IsRegular(), dir: fi.IsDir()}, fi.ModTime())
	}
	return nil
}
