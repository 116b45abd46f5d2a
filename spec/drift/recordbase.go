package drift

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/spec"
)

// RecordBaseIfNone writes `base: commit` into change's .openspec.yaml
// under root (creating it with the change's schema) unless it already
// names a base, and reports whether it wrote. A change whose folder is
// brought onto another line of history (a pipeline's stacked member, its
// artifacts restored onto the member below) keeps so the commit its
// deltas were written against: its history there starts at the restore,
// whose parent already holds the other member's spec edits, which the
// drift check would then take for the base and overwrite. The file must
// be a regular file inside root.Dir if it exists; it is replaced
// atomically.
func RecordBaseIfNone(root spec.Root, change, commit string) (bool, error) {
	if root.ChangeBase(change) != "" {
		return false, nil
	}
	p := &Project{Root: root}
	abs := filepath.Join(root.ChangeDir(change), ".openspec.yaml")
	rel, err := filepath.Rel(root.Dir, abs)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(abs); err == nil {
		if _, err := confine.RegularFile(root.Dir, rel); err != nil {
			return false, err
		}
	} else if _, err := confine.Path(root.Dir, rel); err != nil {
		return false, err
	}
	rw, err := p.recordBase(change, commit)
	if err != nil {
		return false, err
	}
	if err := renameio.WriteFile(abs, []byte(rw.New), 0o644); err != nil {
		return false, fmt.Errorf("record the base of change %s in %s: %w", change, rw.Path, err)
	}
	return true, nil
}
