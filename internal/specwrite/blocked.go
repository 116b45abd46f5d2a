package specwrite

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/spec"
)

// Blocked is a refusal of an OpenSpec verb in OpenSpec 1.13.2's own terms:
// the diagnostic code, message and pasteable fix its CLI prints ("Error:
// MESSAGE" and "Fix: FIX" on stderr, or a status entry of its JSON
// document). It exits 1, as OpenSpec does.
type Blocked struct {
	Code    string // OpenSpec's diagnostic code, e.g. archive_confirmation_required
	Message string
	Fix     string // empty when OpenSpec gives none
	Target  string // what the diagnostic is about (openspec.root), or empty
	// Stdout is what OpenSpec has printed on stdout when it refuses (a
	// question it could not have answered), for its text output only.
	Stdout string
}

func (b *Blocked) Error() string {
	if b.Fix == "" {
		return b.Message
	}
	return b.Message + " (fix: " + b.Fix + ")"
}

// ClaimName is the archive claim OpenSpec 1.13.2 creates in
// openspec/changes/archive/ while it archives: a second archive, by either
// tool, refuses while it exists.
const ClaimName = ".openspec-archive.lock"

// claimArchive creates the claim beside archivePath, as OpenSpec does
// (exclusive create, its pid and a nonce inside), or returns a *Blocked
// naming the claim when another archive holds it. release removes the
// claim only when it still holds what was written, and the archive
// folder when it made it and it is still empty.
func claimArchive(archivePath, archiveName string) (release func(), err error) {
	dir := filepath.Dir(archivePath)
	_, statErr := os.Lstat(dir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the archive folder %q: %w", dir, err)
	}
	path := filepath.Join(dir, ClaimName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, &Blocked{Code: "archive_target_exists", Message: fmt.Sprintf(
			"Archive '%s' is already being created. If no archive process is running, remove the stale claim at %s and rerun.", archiveName, path)}
	}
	if err != nil {
		return nil, fmt.Errorf("claim the archive at %q: %w", path, err)
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	body, _ := json.Marshal(claim{os.Getpid(), hex.EncodeToString(nonce[:]), Binary})
	_, werr := f.Write(body)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("write the archive claim %q: %w", path, werr)
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
