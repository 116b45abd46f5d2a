//go:build !unix

package jjx

import "io/fs"

// inode is 0: the platform gives none.
func inode(fs.FileInfo) uint64 { return 0 }
