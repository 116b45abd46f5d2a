//go:build !linux

package spec

import (
	"fmt"
	"io/fs"
	"os"
)

// renameNoReplace renames from to to unless to exists. Without Linux's
// RENAME_NOREPLACE the check and the rename are two steps.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s: %w", to, fs.ErrExist)
	}
	return os.Rename(from, to)
}
