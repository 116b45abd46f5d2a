package openspeccli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/journal"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/spec"
)

// binary names jj-openspec's ledger directory.
const binary = "jj-openspec"

// ledgerDir is where jj-openspec keeps its lock and archive journal for
// the project r: .jj/specstack/jj-openspec/ of the jj workspace around it,
// <git common dir>/specstack/jj-openspec/ in git, and, outside any
// repository, $XDG_STATE_HOME/specstack/jj-openspec/<hash of the project's
// real path>/ (~/.local/state by default): never in the working copy.
func ledgerDir(r spec.Root) (string, error) {
	if rp, err := repo.Find(r.Dir); err == nil {
		return rp.LedgerDir(binary), nil
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
	return filepath.Join(state, "specstack", binary, hex.EncodeToString(h[:8])), nil
}

// journalDir is the archive journal inside a ledger directory.
func journalDir(ledger string) string { return filepath.Join(ledger, "archive-journal") }

// lockProject takes the project's jj-openspec lock for a mutating verb's
// whole read-modify-write. Another holder is exit 3, naming it.
func lockProject(r spec.Root) (*ledger.Lock, string, error) {
	dir, err := ledgerDir(r)
	if err != nil {
		return nil, "", err
	}
	l, err := ledger.Acquire(dir)
	if err != nil {
		return nil, "", err
	}
	return l, dir, nil
}

// changeVerb is what archive and rebase share before their own work:
// the one CHANGE argument, --dry-run (read after oneChange, which takes
// flags that follow the argument), the project (its config warnings
// printed) and, unless a dry run, the project lock and the journal
// directory. release is never nil; the caller defers it.
func changeVerb(c *cli.Context) (name string, r spec.Root, dry bool, journal string, release func(), err error) {
	release = func() {}
	if name, err = oneChange(c); err != nil {
		return
	}
	dry = c.Bool("dry-run")
	if r, err = openRoot(c); err != nil {
		return
	}
	if err = warnConfig(c, r); err != nil || dry {
		return
	}
	lock, ledger, err := lockProject(r)
	if err != nil {
		return
	}
	return name, r, dry, journalDir(ledger), func() { lock.Release() }, nil
}

// withRecovery makes every command (subcommands too) first finish an
// interrupted archive (finishArchive).
func withRecovery(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		if act := cmd.Action; act != nil {
			cmd.Action = func(c *cli.Context) error {
				if err := finishArchive(c); err != nil {
					return err
				}
				return act(c)
			}
		}
		withRecovery(cmd.Subcommands)
	}
	return cmds
}

// finishArchive rolls forward the archive a killed process left in the
// journal, saying so on stderr. A journal whose files changed since is
// exit 1 with their list. Without a project or a journal it does nothing;
// a journal whose lock is held belongs to an archive still running.
func finishArchive(c *cli.Context) error {
	r, err := openRoot(c)
	if err != nil {
		return nil // the command reports it
	}
	dir, err := ledgerDir(r)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(journalDir(dir)); err != nil {
		return nil
	}
	l, err := ledger.Acquire(dir)
	if err != nil {
		return nil
	}
	defer l.Release()
	rec, err := journal.Recover(journalDir(dir))
	if err != nil {
		var ce *journal.ChangedError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("%w (the journal is %s)", err, journalDir(dir))
	}
	if rec != nil {
		moved := ""
		if rec.Moved {
			moved = ", moved the change to " + rec.ShowTo
		}
		fmt.Fprintf(cliapp.Stderr(c), "%s: finished the interrupted %s (wrote %s%s)\n", binary, rec.What, plural.Count(len(rec.Written), "spec", "specs"), moved)
	}
	return nil
}
