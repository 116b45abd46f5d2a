package actionsworker

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// ExistsError is a workflow file that holds something else than what
// would be written; nothing was written.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s exists and differs from the workflow gh specstack writes: re-run with --force to replace it (--dry-run prints it)", e.Path)
}

// Written says what Write did.
type Written struct {
	Path      string // the file, relative to the repository's root
	Unchanged bool   // it already held the content
}

// Write writes content to Path under root, atomically: Unchanged when
// the file already holds it, an *ExistsError when it holds something
// else and force is not set.
func Write(root string, content []byte, force bool) (Written, error) {
	w := Written{Path: Path}
	p := filepath.Join(root, filepath.FromSlash(Path))
	old, err := os.ReadFile(p)
	switch {
	case err == nil && bytes.Equal(old, content):
		w.Unchanged = true
		return w, nil
	case err == nil && !force:
		return w, &ExistsError{Path: Path}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return w, fmt.Errorf("read %q: %w", p, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return w, fmt.Errorf("create %q: %w", filepath.Dir(p), err)
	}
	if err := renameio.WriteFile(p, content, 0o644); err != nil {
		return w, fmt.Errorf("write %q: %w", p, err)
	}
	return w, nil
}
