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
	return readStat(path, before, 0)
}

// ReadNoFollow is Read for a file the program placed itself and a child
// process wrote (a worker's report or findings): a symbolic link there is
// refused like any other file that is not regular (an *Error), so what is
// read is never a file the link leads to, inside the repository or not.
func ReadNoFollow(path string) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("stat %q: %w", path, err)
	}
	if !before.Mode().IsRegular() {
		return nil, &Error{Path: path, Mode: before.Mode()}
	}
	return readStat(path, before, syscall.O_NOFOLLOW)
}

// readStat is readSame for the file before describes.
func readStat(path string, before fs.FileInfo, flags int) ([]byte, error) {
	was, ok := before.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("read %q: the file was replaced while it was being read; run the command again", path)
	}
	return readSame(path, uint64(was.Dev), uint64(was.Ino), flags)
}

// readSame reads the regular file at path, which must be the file dev/ino,
// opened with the extra open flags.
func readSame(path string, dev, ino uint64, flags int) ([]byte, error) {
	// O_NONBLOCK: should path have become a FIFO since the stat, opening
	// it returns at once instead of waiting for a writer. The descriptor
	// is used directly, not through an os.File: a non-blocking os.File
	// asks the poller to take it (a failed epoll_ctl per file) and carries
	// a finalizer, a measurable share of reading hundreds of small files.
	fd, err := openRead(path, flags)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, &fs.PathError{Op: "open", Path: path, Err: err})
	}
	defer syscall.Close(fd)
	var now syscall.Stat_t
	if err := fstat(fd, &now); err != nil {
		return nil, fmt.Errorf("read %q: %w", path, &fs.PathError{Op: "stat", Path: path, Err: err})
	}
	if uint32(now.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &Error{Path: path, Mode: modeOf(uint32(now.Mode))}
	}
	if uint64(now.Dev) != dev || uint64(now.Ino) != ino {
		return nil, fmt.Errorf("read %q: the file was replaced while it was being read; run the command again", path)
	}
	b, err := readAll(fd, now.Size)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", path, &fs.PathError{Op: "read", Path: path, Err: err})
	}
	return b, nil
}

func openRead(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		err := syscall.Fstat(fd, st)
		if err != syscall.EINTR {
			return err
		}
	}
}

// readAll reads fd to its end, sized for a file of size bytes.
func readAll(fd int, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < 1<<30 {
		n += int(size)
	}
	b := make([]byte, 0, n)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// modeOf is the type bits of a raw st_mode as an fs.FileMode.
func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
