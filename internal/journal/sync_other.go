//go:build !linux

package journal

// syncDirs makes the renames into dirs durable before the journal goes:
// an fsync per directory. The files themselves were fsync'd when written.
func syncDirs(dirs []string) error {
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}
