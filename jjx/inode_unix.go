//go:build unix

package jjx

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number (0 when the platform gives none).
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
