package spec

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// walkDir walks dir with raw system calls: each directory is opened
// relative to its parent's descriptor and read with getdents64 into one
// buffer, each file stat'ed relative to its directory. With s.wholeReads,
// a directory whose first read left room for another entry is not read
// again to see the end (one system call of four a directory). It makes the same
// calls os.ReadDir and os.Stat would, minus their per-file allocations
// (an os.File, a finalizer, sorted DirEntry values) and the kernel's
// lookup of every absolute path from /: about a fifth less CPU time for
// `list` on the 90-change bench project (perf stat task-clock).
func (s *changeScan) walkDir(dir string, buf []byte) error {
	fd, err := openDir(unix.AT_FDCWD, dir)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return s.walkFD(fd, dir, true, buf)
}

func openDir(at int, name string) (int, error) {
	for {
		fd, err := unix.Openat(at, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

type dirent struct {
	name string
	typ  uint8
}

// walkFD reads the directory open at fd (named dir, for errors), closes
// it when done, and enters its subdirectories.
func (s *changeScan) walkFD(fd int, dir string, top bool, buf []byte) error {
	defer unix.Close(fd)
	var entries []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		entries = parseDirents(buf[:n], entries)
		if s.wholeReads && n+maxDirent <= len(buf) {
			break
		}
	}
	for _, e := range entries {
		if top {
			s.names[e.name] = true
		}
		typ := e.typ
		if typ == unix.DT_UNKNOWN { // a file system without d_type: ask
			var st unix.Stat_t
			if err := fstatat(fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			if st.Mode&unix.S_IFMT == unix.S_IFDIR {
				typ = unix.DT_DIR
			}
		}
		if typ == unix.DT_DIR {
			sub, err := openDir(fd, e.name)
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			p := filepath.Join(dir, e.name)
			if err != nil {
				return &fs.PathError{Op: "open", Path: p, Err: err}
			}
			if err := s.walkFD(sub, p, false, buf); err != nil {
				return err
			}
			continue
		}
		var st unix.Stat_t
		if err := fstatat(fd, e.name, &st, 0); err != nil {
			continue
		}
		f := fileStat{regular: st.Mode&unix.S_IFMT == unix.S_IFREG, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR, dev: st.Dev, ino: st.Ino}
		s.found(e.name, top, f, time.Unix(st.Mtim.Unix()))
	}
	return nil
}

// maxDirent is the largest linux_dirent64 record: inode, offset, record
// length and type (19 bytes), a name of up to 255 bytes and its NUL,
// padded to 8 bytes.
const maxDirent = (19 + 255 + 1 + 7) &^ 7

// wholeDirReads reports whether the file system holding dir answers
// getdents64 with every remaining entry that fits in the buffer, so that
// a read leaving room for one more entry is the last. The local file
// systems named here loop until the buffer is full or the directory ends
// (ext4, XFS, Btrfs, F2FS, tmpfs, overlayfs over them); others, FUSE and
// network file systems among them, may answer a batch at a time, and
// their directories are read until a read returns nothing, as os.ReadDir
// does. A file system mounted below dir is taken to be like dir's.
func wholeDirReads(dir string) bool {
	var st unix.Statfs_t
	for {
		err := unix.Statfs(dir, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		break
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC,
		unix.TMPFS_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}

func fstatat(fd int, name string, st *unix.Stat_t, flags int) error {
	for {
		err := unix.Fstatat(fd, name, st, flags)
		if err != unix.EINTR {
			return err
		}
	}
}

// parseDirents appends the entries of a getdents64 buffer (struct
// linux_dirent64: inode, offset, record length, type, NUL-terminated
// name), leaving out "." and "..".
func parseDirents(b []byte, out []dirent) []dirent {
	const nameOff = 8 + 8 + 2 + 1
	for len(b) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < nameOff || reclen > len(b) {
			break
		}
		name := b[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if n := string(name); n != "." && n != ".." {
			out = append(out, dirent{name: n, typ: b[18]})
		}
		b = b[reclen:]
	}
	return out
}
