package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/ledger"
)

// Recovered describes an interrupted update that Recover finished.
type Recovered struct {
	What    string
	Written []string // files it (re)wrote, as shown
	Moved   bool     // whether it did the move
	ShowTo  string   // where the move went
}

// Recover finishes the interrupted update journaled in dir, if any, by
// rolling it forward: every target must hold either its old bytes or its
// new ones (otherwise a *ChangedError lists the others, and nothing is
// written), and the move must be either undone or done. A journal
// directory that was never committed is removed. It returns nil, nil when
// there was nothing to do. The caller holds the lock that Run's caller
// held.
func Recover(dir string) (*Recovered, error) {
	if !Pending(dir) {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("remove the unfinished journal %s: %w", dir, err)
		}
		return nil, nil
	}
	var rec record
	if err := ledger.ReadFile(filepath.Join(dir, journalFile), &rec); err != nil {
		return nil, err
	}
	if rec.Schema > ledger.SchemaVersion {
		return nil, fmt.Errorf("journal %s: schema %d: %w (upgrade specstack to finish it)", dir, rec.Schema, ledger.ErrNewerSchema)
	}
	var pending []writeRecord
	var changed []string
	for _, w := range rec.Writes {
		state, err := stateOf(w)
		if err != nil {
			return nil, fmt.Errorf("finish the interrupted %s: %w", rec.What, err)
		}
		switch state {
		case isOld:
			pending = append(pending, w)
		case isOther:
			changed = append(changed, w.Show)
		}
	}
	m := rec.Move
	moveDone := false
	if m.From != "" {
		_, fromErr := os.Lstat(m.From)
		_, toErr := os.Lstat(m.To)
		switch {
		case fromErr == nil && errors.Is(toErr, fs.ErrNotExist):
		case errors.Is(fromErr, fs.ErrNotExist) && toErr == nil:
			moveDone = true
		default:
			changed = append(changed, m.ShowFrom+" (to be moved to "+m.ShowTo+")")
		}
	}
	if len(changed) > 0 {
		return nil, &ChangedError{What: rec.What, Paths: changed, Dir: dir}
	}
	content, err := os.ReadFile(filepath.Join(dir, contentFile))
	if err != nil {
		return nil, fmt.Errorf("finish the interrupted %s: %w", rec.What, err)
	}
	out := &Recovered{What: rec.What, ShowTo: m.ShowTo}
	var writes []Write
	for _, w := range pending {
		if w.Delete {
			w.Offset, w.Size = 0, 0
		}
		if !w.Delete && (w.Offset < 0 || w.Size < 0 || w.Offset+w.Size > int64(len(content)) || sum(content[w.Offset:w.Offset+w.Size]) != w.NewSum) {
			return nil, fmt.Errorf("finish the interrupted %s: the journal %s is damaged (the new content of %s does not match its hash); move it aside and check the files it names", rec.What, dir, w.Show)
		}
		if w.Delete {
			if _, err := remove(w.Path); err != nil {
				return nil, fmt.Errorf("finish the interrupted %s: delete %s: %w (run any jj-openspec command again once that is fixed)", rec.What, w.Show, err)
			}
			writes = append(writes, Write{Path: w.Path, Delete: true})
			out.Written = append(out.Written, w.Show)
			continue
		}
		data := content[w.Offset : w.Offset+w.Size]
		if _, err := put(w.Path, data, fs.FileMode(w.Mode)); err != nil {
			return nil, fmt.Errorf("finish the interrupted %s: write %s: %w (run any jj-openspec command again once that is fixed)", rec.What, w.Show, err)
		}
		writes = append(writes, Write{Path: w.Path})
		out.Written = append(out.Written, w.Show)
	}
	if err := syncDirs(dirsOf(writes)); err != nil {
		return nil, err
	}
	for _, w := range rec.Writes {
		if err := RemoveTemps(w.Path); err != nil {
			return nil, fmt.Errorf("finish the interrupted %s: %w", rec.What, err)
		}
	}
	if m.From != "" && !moveDone {
		if err := move(m); err != nil {
			return nil, fmt.Errorf("finish the interrupted %s: %w", rec.What, err)
		}
		out.Moved = true
	}
	if err := discard(dir); err != nil {
		return nil, err
	}
	return out, nil
}

type fileState int

const (
	isNew fileState = iota
	isOld
	isOther
)

// stateOf compares a target's bytes on disk with the journal's hashes.
func stateOf(w writeRecord) (fileState, error) {
	b, err := os.ReadFile(w.Path)
	switch {
	case err == nil:
		switch sum(b) {
		case w.NewSum:
			return isNew, nil
		case w.OldSum:
			return isOld, nil
		}
		return isOther, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
		if w.Delete {
			return isNew, nil // deleted already
		}
		if w.OldSum == "" {
			return isOld, nil
		}
		return isOther, nil
	}
	return isOther, fmt.Errorf("read %s: %w", w.Path, err)
}

// RemoveTemps removes what a kill -9 inside the atomic write of path left
// beside it: renameio's temporary files, named "." + path's name + the
// decimal digits os.CreateTemp adds. Only regular files of exactly that
// form go; anything else in the folder is the user's.
func RemoveTemps(path string) error {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("look for half-written files beside %s: %w", path, err)
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the half-written %s: %w", filepath.Join(dir, e.Name()), err)
		}
	}
	return nil
}
