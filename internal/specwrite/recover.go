package specwrite

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
)

// Recover rolls forward the archive (or rebase, or sync) a killed
// process left in the project's journal, saying so on stderr. A journal
// whose files changed since is exit 1 with their list. Without a ledger
// directory or a journal it does nothing; a journal whose lock is held
// belongs to an archive still running, and is left to it. A claim
// (ClaimName) a killed jj-openspec archive left goes, unless a journal
// could not be finished (then nothing is written).
func Recover(r spec.Root, stderr io.Writer) error {
	dir, err := LedgerDir(r)
	if err != nil {
		clearStaleClaim(r)
		return nil
	}
	jdir := JournalDir(dir)
	if _, err := os.Lstat(jdir); err != nil {
		clearStaleClaim(r)
		return nil
	}
	l, err := ledger.Acquire(dir)
	if err != nil {
		return nil
	}
	defer l.Release()
	rec, err := journal.Recover(jdir)
	if err != nil {
		var ce *journal.ChangedError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("%w (the journal is %s)", err, jdir)
	}
	clearStaleClaim(r)
	if rec != nil {
		moved := ""
		if rec.Moved {
			moved = ", moved the change to " + rec.ShowTo
		}
		fmt.Fprintf(stderr, "%s: finished the interrupted %s (wrote %s%s)\n", Binary, rec.What, plural.Count(len(rec.Written), "spec", "specs"), moved)
	}
	return nil
}
