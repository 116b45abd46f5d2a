package journal

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// syncDirs makes the renames into dirs durable before the journal goes:
// one syncfs(2) per file system, far cheaper than an fsync per directory
// of a 400-spec archive. The files themselves were fsync'd when written.
func syncDirs(dirs []string) error {
	seen := map[uint64]bool{}
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("sync %s: %w", d, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if ok && seen[uint64(st.Dev)] {
			continue
		}
		if ok {
			seen[uint64(st.Dev)] = true
		}
		f, err := os.Open(d)
		if err != nil {
			return fmt.Errorf("sync %s: %w", d, err)
		}
		err = unix.Syncfs(int(f.Fd()))
		f.Close()
		if err != nil {
			return fmt.Errorf("sync the file system of %s: %w", d, err)
		}
	}
	return nil
}
