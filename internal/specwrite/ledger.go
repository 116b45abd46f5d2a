package specwrite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/spec"
)

// Binary names jj-openspec's ledger directory.
const Binary = "jj-openspec"

// LedgerDir is where jj-openspec keeps its lock and archive journal for
// the project r: .jj/specstack/jj-openspec/ of the jj workspace around it,
// <git common dir>/specstack/jj-openspec/ in git, and, outside any
// repository, $XDG_STATE_HOME/specstack/jj-openspec/<hash of the project's
// real path>/ (~/.local/state by default): never in the working copy.
func LedgerDir(r spec.Root) (string, error) {
	if rp, err := repo.Find(r.Dir); err == nil {
		return rp.LedgerDir(Binary), nil
	}
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", exitcode.New(exitcode.Missing, "%s is in no jj or git repository and there is no home directory for its lock: set XDG_STATE_HOME or HOME", r.Dir)
		}
		state = filepath.Join(home, ".local", "state")
	}
	real, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", r.Dir, err)
	}
	h := sha256.Sum256([]byte(real))
	return filepath.Join(state, "specstack", Binary, hex.EncodeToString(h[:8])), nil
}

// JournalDir is the archive journal inside a ledger directory.
func JournalDir(ledger string) string { return filepath.Join(ledger, "archive-journal") }

// lockProject takes the project's jj-openspec lock for a mutating verb's
// whole read-modify-write and returns it with the journal directory.
// Another holder is exit 3, naming it.
func lockProject(r spec.Root) (*ledger.Lock, string, error) {
	dir, err := LedgerDir(r)
	if err != nil {
		return nil, "", err
	}
	l, err := ledger.Acquire(dir)
	if err != nil {
		return nil, "", err
	}
	return l, JournalDir(dir), nil
}

// lockUnless takes the project lock unless dry (a dry run writes nothing
// and takes none); release is never nil, jdir is "" when dry.
func lockUnless(r spec.Root, dry bool) (release func(), jdir string, err error) {
	if dry {
		return func() {}, "", nil
	}
	l, jdir, err := lockProject(r)
	if err != nil {
		return func() {}, "", err
	}
	return func() { l.Release() }, jdir, nil
}
