package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// changeScan is one walk of a change directory, made once for `list`:
// the names directly in it, the stat (links followed, as OpenSpec's
// fs.stat) of each file directly in it, and the newest mtime of any file
// under it. The questions list asks of a change — its .openspec.yaml, its
// task files, whether it looks like a change, when it last changed — are
// answered from it instead of one stat each, which on a project of
// hundreds of changes is most of the command's system calls.
type changeScan struct {
	dir    string
	names  map[string]bool     // every entry directly in dir
	files  map[string]fileStat // the stat of each non-directory entry directly in dir
	latest time.Time           // newest file mtime under dir; zero when it holds none
	links  bool                // a symbolic link is somewhere under dir
}

// scanChange walks dir as OpenSpec's getLastModified does: directories
// are entered, every other entry is stat'ed with links followed (one that
// cannot be is left out), a missing directory is skipped, an unreadable
// one is an error.
func scanChange(dir string) (*changeScan, error) {
	s := &changeScan{dir: dir, names: map[string]bool{}, files: map[string]fileStat{}}
	if err := s.walk(dir, true); err != nil {
		return nil, fmt.Errorf("walk %q: %w", dir, err)
	}
	return s, nil
}

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
		if e.Type()&fs.ModeSymlink != 0 {
			s.links = true
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

// fileStat is what the scan keeps of a file directly in the change: its
// kind.
type fileStat struct{ regular, dir bool }

// found records one stat'ed entry of the walk: name directly in the
// change when top.
func (s *changeScan) found(name string, top bool, st fileStat, mtime time.Time) {
	if top {
		s.files[name] = st
	}
	if mtime.After(s.latest) {
		s.latest = mtime
	}
}

// metadata is readChangeMetadata without its stat when the walk saw no
// .openspec.yaml.
func (s *changeScan) metadata() changeMetadata {
	if !s.names[".openspec.yaml"] {
		return changeMetadata{}
	}
	return readChangeMetadata(s.dir)
}

// outputs is Outputs(s.dir, generates), answered from the walk for a
// plain file name directly in the change.
func (s *changeScan) outputs(generates string) []string {
	if strings.ContainsAny(generates, "*?[{/\\") || generates == "." || generates == ".." {
		return Outputs(s.dir, generates)
	}
	if fi, ok := s.files[generates]; ok && fi.regular {
		return []string{filepath.Join(s.dir, generates)}
	}
	return nil
}

// read reads path, a file directly in the change or not, as
// regfile.Read does, as text (as Root.ReadText); a file directly in the
// change that the walk did not see is missing (an fs.ErrNotExist error),
// as it was for the rest of the walk's answers.
func (s *changeScan) read(path string) ([]byte, error) {
	if s != nil && filepath.Dir(path) == s.dir && !s.names[filepath.Base(path)] {
		return nil, fmt.Errorf("stat %q: %w", path, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist})
	}
	b, err := regfile.Read(path)
	return jstext.Decode(b), err
}

// hasMarkerFile is the first test of looksLikeChange: one of the files
// every change has is there (and is not a directory).
func (s *changeScan) hasMarkerFile() bool {
	for _, m := range changeMarkers {
		if fi, ok := s.files[m]; ok && !fi.dir {
			return true
		}
	}
	return false
}
