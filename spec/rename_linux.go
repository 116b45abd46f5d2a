package spec

import "golang.org/x/sys/unix"

// renameNoReplace renames from to to, failing (fs.ErrExist matches) when
// to exists, in one step.
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}
