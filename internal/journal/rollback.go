package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

var errNotDir error = syscall.ENOTDIR

// RollbackError reports an update that failed part-way and what was done
// about the files it had written: restored (or removed, when it had
// created them), or not.
type RollbackError struct {
	What     string
	Cause    error
	Restored []string // rewritten with their old content, as shown
	Removed  []string // created by the update and removed again, as shown
	Failed   []string // as shown, each with the reason
	Dir      string   // the journal, kept when Failed is not empty
}

func (e *RollbackError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed: %v; ", e.What, e.Cause)
	if len(e.Restored) > 0 {
		fmt.Fprintf(&b, "restored %s; ", strings.Join(e.Restored, ", "))
	}
	if len(e.Removed) > 0 {
		fmt.Fprintf(&b, "removed %s, which it had created; ", strings.Join(e.Removed, ", "))
	}
	switch {
	case len(e.Failed) == 0 && len(e.Restored)+len(e.Removed) == 0:
		b.WriteString("nothing had been written: the tree is as it was")
	case len(e.Failed) == 0:
		b.WriteString("the tree is as it was")
	default:
		fmt.Fprintf(&b, "could not restore, so left with the new content: %s; the journal %s is kept: "+
			"fix the cause, and the next jj-openspec command finishes the %s", strings.Join(e.Failed, "; "), e.Dir, e.What)
	}
	return b.String()
}

func (e *RollbackError) Unwrap() error { return e.Cause }

// rollback tracks the writes of a running update so that it can undo them.
type rollback struct {
	intent  Intent
	dir     string
	written []int      // indexes into intent.Writes, in order
	created [][]string // directories each write created
}

// write performs write i, remembering what to undo (even on failure: the
// directories it created).
func (rb *rollback) write(i int) error {
	w := rb.intent.Writes[i]
	if w.Delete {
		if _, err := remove(w.Path); err != nil {
			return err
		}
		rb.written = append(rb.written, i)
		rb.created = append(rb.created, nil)
		return nil
	}
	created, err := put(w.Path, w.New, w.Mode)
	if err != nil {
		removeDirs(created)
		return err
	}
	rb.written = append(rb.written, i)
	rb.created = append(rb.created, created)
	return nil
}

// undo restores every file written, newest first, and returns a
// *RollbackError around cause. The journal is deleted when everything was
// restored and kept otherwise (the tree then holds old and new contents
// only, which Recover rolls forward).
func (rb *rollback) undo(cause error) error {
	e := &RollbackError{What: rb.intent.What, Cause: cause}
	for k := len(rb.written) - 1; k >= 0; k-- {
		w := rb.intent.Writes[rb.written[k]]
		var err error
		if w.Delete {
			_, err = put(w.Path, w.Old, w.Mode) // its folder too, if it went
		} else if w.Exists {
			err = replaceFile(w.Path, w.Old, w.Mode)
		} else if err = os.Remove(w.Path); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err != nil {
			e.Failed = append(e.Failed, fmt.Sprintf("%s (%v)", w.Show, err))
			continue
		}
		if w.Exists {
			e.Restored = append(e.Restored, w.Show)
			continue
		}
		removeDirs(rb.created[k])
		e.Removed = append(e.Removed, w.Show)
	}
	if len(e.Failed) > 0 {
		e.Dir = rb.dir
		return e
	}
	if err := discard(rb.dir); err != nil {
		return errors.Join(e, err)
	}
	return e
}

// removeDirs removes the directories an update created, innermost first,
// when they are empty.
func removeDirs(created []string) {
	for j := len(created) - 1; j >= 0; j-- {
		_ = os.Remove(created[j])
	}
}
