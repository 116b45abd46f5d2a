// Package journal makes jj-openspec's archive crash-consistent: a set of
// file replacements followed by one directory move, recorded as an intent
// journal before the first write, so that a process killed at any instant
// leaves a tree the next command can finish.
//
// A journal directory holds two files: content, the new bytes of every
// file, one after the other, and journal.toml, which names each target
// with the SHA-256 of the bytes read and of the bytes to write, the offset
// of its new bytes in content, and the move. journal.toml is written last
// (atomically, fsync'd, its directory too): it is the commit point. Before
// it exists nothing has been written and a leftover directory is
// discarded; once it exists, the update is finished by Recover.
//
// Run executes an Intent: check that every target still holds the bytes
// read, write the journal, replace each file (temporary file, fsync,
// rename), sync the directories, move, delete the journal. A failure
// before the move restores the files already written and says which.
package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
)

// Write replaces (or creates) one file.
type Write struct {
	Path   string      // absolute, symlinks resolved: the file written
	Show   string      // how messages name it (relative to the project)
	Exists bool        // Old was read from an existing file; false: the file is created
	Old    []byte      // the bytes read when the update was planned
	New    []byte      // the bytes to write
	Mode   fs.FileMode // permissions of a created file (an existing one keeps its own)
	// Delete removes the file (Exists, holding Old) instead of writing
	// New, and its folder when that is left empty.
	Delete bool
}

// Move renames a directory, after every write.
type Move struct {
	From, To         string // absolute
	ShowFrom, ShowTo string // how messages name them
}

// Intent is one update: what it is (for messages, e.g. `archive of
// "add-export"`), its writes and its move.
type Intent struct {
	What   string
	Writes []Write
	Move   Move
}

// Errors a caller can branch on.
var (
	// ErrChanged: a file no longer holds the bytes the update was planned
	// from (or, on recovery, neither those nor the new ones).
	ErrChanged = errors.New("changed on disk")
	// ErrPending: an interrupted update must be recovered first.
	ErrPending = errors.New("an interrupted update is pending")
)

// File names inside a journal directory.
const (
	journalFile = "journal.toml"
	contentFile = "content"
)

// record is journal.toml.
type record struct {
	Schema  int           `toml:"schema"`
	What    string        `toml:"what"`
	PID     int           `toml:"pid"`
	Started time.Time     `toml:"started"`
	Writes  []writeRecord `toml:"write"`
	Move    Move          `toml:"move"`
}

type writeRecord struct {
	Path   string `toml:"path"`
	Show   string `toml:"show"`
	OldSum string `toml:"old_sha256"` // empty: the file did not exist
	NewSum string `toml:"new_sha256"`
	Offset int64  `toml:"offset"`
	Size   int64  `toml:"size"`
	Mode   uint32 `toml:"mode"`
	Delete bool   `toml:"delete,omitempty"`
}

// ChangedError lists files that changed under an update.
type ChangedError struct {
	What  string
	Paths []string // as shown
	Dir   string   // the journal kept, on recovery; empty when nothing was written
}

func (e *ChangedError) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("%s: %s %v since they were read: %s; nothing was written, run it again",
			e.What, plural.Count(len(e.Paths), "file", "files"), ErrChanged, strings.Join(e.Paths, ", "))
	}
	return fmt.Sprintf("cannot finish the interrupted %s: %s %v since it began (holding neither their old nor their new content): %s; "+
		"restore them (e.g. `jj restore PATH` or `git checkout -- PATH`) and run any jj-openspec command to finish it, "+
		"or remove %s to give it up (the other files keep what it wrote)",
		e.What, plural.Count(len(e.Paths), "file", "files"), ErrChanged, strings.Join(e.Paths, ", "), e.Dir)
}

func (e *ChangedError) Unwrap() error { return ErrChanged }

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Pending reports whether dir holds a committed journal.
func Pending(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, journalFile))
	return err == nil
}

// Run executes in, journaled in dir (which must not hold a pending
// journal). Nothing is written when a target no longer holds its Old bytes
// (a *ChangedError). When a write or the move fails, the files written so
// far are restored and the error is a *RollbackError naming them; should a
// restore fail too, the journal is kept so that the next command finishes
// the update.
func Run(dir string, in Intent) error {
	if Pending(dir) {
		return fmt.Errorf("%s: %w in %s", in.What, ErrPending, dir)
	}
	var changed []string
	for _, w := range in.Writes {
		ok, err := holds(w.Path, w.Exists, w.Old)
		if err != nil {
			return fmt.Errorf("%s: %w", in.What, err)
		}
		if !ok {
			changed = append(changed, w.Show)
		}
	}
	if len(changed) > 0 {
		return &ChangedError{What: in.What, Paths: changed}
	}
	if err := commit(dir, in); err != nil {
		return fmt.Errorf("%s: write the journal: %w (nothing else was written)", in.What, err)
	}
	rb := &rollback{intent: in, dir: dir}
	for i, w := range in.Writes {
		// the bytes read are compared again just before writing: refuse
		// rather than overwrite an edit made since
		ok, err := holds(w.Path, w.Exists, w.Old)
		if err != nil {
			return rb.undo(err)
		}
		if !ok {
			return rb.undo(fmt.Errorf("%s %w since it was read (refusing to overwrite it)", w.Show, ErrChanged))
		}
		if err := rb.write(i); err != nil {
			return rb.undo(fmt.Errorf("write %s: %w", w.Show, err))
		}
	}
	if err := syncDirs(dirsOf(in.Writes)); err != nil {
		return rb.undo(err)
	}
	if err := move(in.Move); err != nil {
		return rb.undo(err)
	}
	return discard(dir)
}

// holds reports whether path holds old (exists) or is absent (!exists).
func holds(path string, exists bool, old []byte) (bool, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return exists && bytes.Equal(b, old), nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
		return !exists, nil
	}
	return false, fmt.Errorf("read %s: %w", path, err)
}

// commit writes the journal: content first, then journal.toml, each
// fsync'd, then the directory.
func commit(dir string, in Intent) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rec := record{Schema: ledger.SchemaVersion, What: in.What, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second), Move: in.Move}
	var content bytes.Buffer
	for _, w := range in.Writes {
		wr := writeRecord{Path: w.Path, Show: w.Show, NewSum: sum(w.New), Offset: int64(content.Len()), Size: int64(len(w.New)), Mode: uint32(w.Mode.Perm()), Delete: w.Delete}
		if w.Delete {
			wr.NewSum, wr.Size = "", 0
		}
		if w.Exists {
			wr.OldSum = sum(w.Old)
		}
		if !w.Delete {
			content.Write(w.New)
		}
		rec.Writes = append(rec.Writes, wr)
	}
	if err := renameio.WriteFile(filepath.Join(dir, contentFile), content.Bytes(), 0o644); err != nil {
		return err
	}
	if err := ledger.WriteFile(filepath.Join(dir, journalFile), rec); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// discard deletes a finished journal: journal.toml first (the update is
// then done), then the rest.
func discard(dir string) error {
	if err := os.Remove(filepath.Join(dir, journalFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the journal %s: %w", dir, err)
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the journal %s: %w", dir, err)
	}
	return nil
}

// replaceFile writes a whole file atomically; a variable so that tests can
// make a write fail.
var replaceFile = func(path string, data []byte, mode fs.FileMode) error {
	return renameio.WriteFile(path, data, mode)
}

// put writes data to path, creating its missing directories, and returns
// the directories it created (outermost first).
func put(path string, data []byte, mode fs.FileMode) ([]string, error) {
	var created []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append([]string{d}, created...)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return created, err
	}
	return created, replaceFile(path, data, mode)
}

// move renames m.From to m.To, which must not exist, and syncs both
// parents.
func move(m Move) error {
	if m.From == "" {
		return nil
	}
	if _, err := os.Lstat(m.To); err == nil {
		return fmt.Errorf("move %s to %s: %w", m.ShowFrom, m.ShowTo, fs.ErrExist)
	}
	if err := os.MkdirAll(filepath.Dir(m.To), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(m.To), err)
	}
	if err := os.Rename(m.From, m.To); err != nil {
		return fmt.Errorf("move %s to %s: %w", m.ShowFrom, m.ShowTo, err)
	}
	if err := syncDir(filepath.Dir(m.From)); err != nil {
		return err
	}
	return syncDir(filepath.Dir(m.To))
}

// remove deletes path and then its folder when that is left empty
// (reporting whether it went).
func remove(path string) (dirGone bool, err error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return os.Remove(filepath.Dir(path)) == nil, nil
}

// dirsOf lists the directories of writes, once each (a deletion's parent
// folder, which it may have removed).
func dirsOf(writes []Write) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, w := range writes {
		d := filepath.Dir(w.Path)
		if w.Delete {
			d = filepath.Dir(d)
		}
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
