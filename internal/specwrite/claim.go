package specwrite

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/spec"
)

// ClaimName is the archive claim OpenSpec 1.13.2 creates in
// openspec/changes/archive/ while it archives: a second archive, by either
// tool, refuses while it exists.
const ClaimName = ".openspec-archive.lock"

// stagedClaim is where, in the ledger directory, a claim is written
// before it appears in the project (under the project lock: one found
// there is a killed archive's, and goes).
const stagedClaim = "archive-claim"

// claimArchive creates the claim beside archivePath, as OpenSpec does (its
// pid and a nonce inside; exclusive: an archive holding it already is a
// *Blocked naming the claim), or returns the error. The claim appears
// whole or not at all: written in the ledger directory ledgerDir first,
// then linked into the archive folder, or renamed into place as the
// archive folder itself when there is none yet, so that a kill at any
// instant leaves in the project either nothing or a complete claim, which
// the next command clears (clearStaleClaim). Where the ledger is on
// another file system it is created in place, as OpenSpec does. release
// removes the claim only when it still holds what was written, and the
// archive folder when it made it and it is still empty.
func claimArchive(archivePath, archiveName, ledgerDir string) (release func(), err error) {
	dir := filepath.Dir(archivePath)
	path := filepath.Join(dir, ClaimName)
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	body, _ := json.Marshal(claim{os.Getpid(), hex.EncodeToString(nonce[:]), Binary})
	created, err := placeClaim(dir, path, body, filepath.Join(ledgerDir, stagedClaim))
	if errors.Is(err, fs.ErrExist) {
		return nil, &Blocked{Code: "archive_target_exists", Message: fmt.Sprintf(
			"Archive '%s' is already being created. If no archive process is running, remove the stale claim at %s and rerun.", archiveName, path)}
	}
	if err != nil {
		return nil, err
	}
	return func() {
		if b, err := os.ReadFile(path); err == nil && string(b) == string(body) {
			_ = os.Remove(path)
		}
		if created {
			_ = os.Remove(dir) // only when still empty: a failed archive leaves no folder
		}
	}, nil
}

// placeClaim puts body at path in the archive folder dir through the
// folder stage (see claimArchive) and reports whether it created dir; a
// claim already there is fs.ErrExist.
func placeClaim(dir, path string, body []byte, stage string) (created bool, err error) {
	// A claim a killed archive staged goes first (the caller holds the
	// project lock); a stage that cannot be made is done without.
	staged := filepath.Join(stage, ClaimName)
	if os.RemoveAll(stage) == nil && os.MkdirAll(stage, 0o755) == nil {
		defer os.RemoveAll(stage)
		if err := os.WriteFile(staged, body, 0o644); err != nil {
			return false, fmt.Errorf("write the archive claim in %s: %w", stage, err)
		}
		engine.CrashPoint("archive-claim-staged")
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			if os.Rename(stage, dir) == nil {
				engine.CrashPoint("archive-claimed")
				return true, nil
			}
			// another file system, or the folder appeared meanwhile
		}
		err := os.Link(staged, path)
		if err == nil {
			engine.CrashPoint("archive-claimed")
		}
		if err == nil || errors.Is(err, fs.ErrExist) {
			return false, err
		}
		// no hard links from there: in place, below
	}
	return createClaim(dir, path, body)
}

// createClaim creates the claim in place (exclusive create, then its
// content), the folder first when there is none, as OpenSpec does.
func createClaim(dir, path string, body []byte) (created bool, err error) {
	_, statErr := os.Lstat(dir)
	created = errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create the archive folder %q: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if !errors.Is(err, fs.ErrExist) {
			err = fmt.Errorf("claim the archive at %q: %w", path, err)
		}
		return false, err
	}
	_, werr := f.Write(body)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return false, fmt.Errorf("write the archive claim %q: %w", path, werr)
	}
	return created, nil
}

// claim is the claim file's content: OpenSpec's pid and nonce, and which
// tool wrote it (OpenSpec reads none of it back but its own).
type claim struct {
	PID   int    `json:"pid"`
	Nonce string `json:"nonce"`
	By    string `json:"by"`
}

// clearStaleClaim removes a claim a killed jj-openspec archive left in
// r's archive folder (written by jj-openspec, its process gone), and the
// folder when that leaves it empty, so that the next archive is not
// refused for it; any other claim stays.
func clearStaleClaim(r spec.Root) {
	path := filepath.Join(r.ArchiveDir(), ClaimName)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var c claim
	if json.Unmarshal(b, &c) != nil || c.By != Binary || c.PID <= 0 || c.PID == os.Getpid() || ledger.Alive(c.PID) {
		return
	}
	if os.Remove(path) == nil {
		_ = os.Remove(r.ArchiveDir()) // only when empty: the folder the claim made
	}
}
