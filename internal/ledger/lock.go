package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// Holder describes the process that holds a lock.
type Holder struct {
	PID     int       `toml:"pid"`
	Start   time.Time `toml:"start"`
	Host    string    `toml:"host"`
	Command string    `toml:"command"`
}

// Lock is an exclusive lock on a ledger directory, held for the life of
// a run. The operating system drops it when the process dies, so a killed
// run never leaves a stale lock.
type Lock struct {
	dir string
	fl  *flock.Flock
}

// LockFile and HolderFile are the lock's files inside the ledger directory.
const (
	LockFile   = "lock"
	HolderFile = "lock-holder.toml"
)

// Acquire takes the lock of dir (created when missing) without waiting.
// When another process holds it, the error is a *LockedError naming the
// holder's pid and start time.
func Acquire(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// The ledger folder and its artifacts are the program's own: a
	// symbolic link in their place leads elsewhere (briefs, logs and
	// reports would be written and removed there), and is refused.
	for _, p := range []string{dir, filepath.Join(dir, "artifacts")} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			return nil, fmt.Errorf("lock %s: %s is a symbolic link (to %s): the ledger's folders are its own, never followed; replace it with a folder", dir, p, to)
		}
	}
	fl := flock.New(filepath.Join(dir, LockFile))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "" // an unknown host never matches a holder's: liveness is not assumed
	}
	if !ok {
		h, ok := liveHolder(dir, host)
		if !ok {
			return nil, &LockedError{Dir: dir}
		}
		return nil, &LockedError{Dir: dir, Holder: h}
	}
	h := Holder{PID: os.Getpid(), Start: time.Now().UTC().Truncate(time.Second), Host: host, Command: strings.Join(os.Args, " ")}
	if err := WriteFile(filepath.Join(dir, HolderFile), h); err != nil {
		fl.Unlock()
		return nil, err
	}
	return &Lock{dir: dir, fl: fl}, nil
}

// Dir is the ledger directory the lock is of.
func (l *Lock) Dir() string { return l.dir }

// Release drops the lock.
func (l *Lock) Release() error {
	os.Remove(filepath.Join(l.dir, HolderFile))
	return l.fl.Unlock()
}

// Holding reports whether a process holds the lock of dir, as its
// holder file names it, without taking the lock: a live process of this
// host (or one of another host, whose liveness cannot be known). A holder
// killed leaves a file naming a process that is gone: not holding.
func Holding(dir string) bool {
	_, ok := LiveHolder(dir)
	return ok
}

// LiveHolder is the process that holds the lock of dir, as its holder
// file names it, when it may still run (as Holding decides); ok is false
// when no process holds it.
func LiveHolder(dir string) (h Holder, ok bool) {
	if err := ReadFile(filepath.Join(dir, HolderFile), &h); err != nil {
		return Holder{}, false
	}
	host, err := os.Hostname()
	if err != nil {
		host = ""
	}
	return h, h.live(host)
}

// LockedError is the refusal of a lock another run holds.
type LockedError struct {
	Dir string // the ledger directory
	// Holder is the run that holds the lock, as its holder file names
	// it; the zero Holder when no live holder could be read.
	Holder Holder
}

func (e *LockedError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("ledger %s is locked by another run (holder unknown): wait for it to finish", e.Dir)
	}
	return fmt.Sprintf("ledger %s is locked by pid %d (%s, started %s on %s): wait for that run to finish, or stop it and resume",
		e.Dir, h.PID, h.Command, h.Start.Format(time.RFC3339), h.Host)
}

// Busy is the error Acquire would return while a live process holds the
// lock of dir (a *LockedError naming it), without taking the lock; nil
// when no process holds it. A command that would refuse for what the ledger
// holds says first that a live run holds it.
func Busy(dir string) error {
	if h, ok := LiveHolder(dir); ok {
		return &LockedError{Dir: dir, Holder: h}
	}
	return nil
}

// live reports whether h, read from a holder file, names a holder that
// may still run: a process of another host, or a live one of host.
func (h Holder) live(host string) bool {
	return h.PID != 0 && ((h.Host != "" && h.Host != host) || alive(h.PID))
}

// holderWait bounds how long a refused Acquire waits for the holder to
// name itself: a holder writes its file just after taking the lock.
const holderWait = time.Second

// liveHolder reads the holder file of a locked dir, waiting up to
// holderWait while it is missing or names a process of this host that no
// longer exists (left by a holder that was killed).
func liveHolder(dir, host string) (Holder, bool) {
	deadline := time.Now().Add(holderWait)
	for {
		var h Holder
		err := ReadFile(filepath.Join(dir, HolderFile), &h)
		if err == nil && h.live(host) {
			return h, true
		}
		if time.Now().After(deadline) {
			return h, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Alive reports whether process pid exists on this host.
func Alive(pid int) bool { return alive(pid) }

// alive reports whether process pid exists on this host.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
