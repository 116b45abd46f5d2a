// Package regfile reads input files that must be regular files.
//
// A FIFO, socket, device or directory where a document belongs is refused
// by its mode before anything opens it: opening a FIFO for reading blocks
// until a writer appears, so a reader that opened first would hang. The
// mode is checked again on the opened descriptor (opened non-blocking), so
// a file swapped for a FIFO between the two checks is refused as well.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports a path that exists but is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Error names the path that is not a regular file and what it is instead.
type Error struct {
	Path string
	Mode fs.FileMode
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; replace it with a regular file (or remove it)", e.Path, Kind(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *Error) Is(target error) bool { return target == ErrNotRegular }

// Kind describes a file mode for a person: "a directory", "a named pipe
// (FIFO)", "a socket", "a device", "a regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// Check stats path, following symbolic links, and returns its info when it
// is a regular file. A path that does not exist returns an error wrapping
// fs.ErrNotExist; anything else that is not a regular file returns an
// *Error (errors.Is ErrNotRegular). The file is never opened.
func Check(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("stat %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fi, &Error{Path: path, Mode: fi.Mode()}
	}
	return fi, nil
}

// Read returns the contents of the regular file at path. It fails, without
// opening it, when path is not a regular file (an *Error), and wraps
// fs.ErrNotExist when it is missing. Every error names path.
func Read(path string) ([]byte, error) {
	before, err := Check(path)
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path have become a FIFO since the stat, opening
	// it returns at once instead of waiting for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	if !now.Mode().IsRegular() {
		return nil, &Error{Path: path, Mode: now.Mode()}
	}
	if !os.SameFile(before, now) {
		return nil, fmt.Errorf("read %q: the file was replaced while it was being read; run the command again", path)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	return b, nil
}
