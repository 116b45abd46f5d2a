package specwrite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestClaimArchive: the claim appears in the archive folder (made with it
// when there is none, and removed with it on release), a claim already
// there refuses, a staged claim a killed archive left is replaced, and a
// ledger the claim cannot be staged in falls back to creating it in place.
func TestClaimArchive(t *testing.T) {
	root := t.TempDir()
	changes := filepath.Join(root, "openspec", "changes")
	if err := os.MkdirAll(changes, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(changes, "archive")
	target := filepath.Join(archive, "2026-12-06-add-a")
	claimPath := filepath.Join(archive, ClaimName)
	ledgerDir := filepath.Join(root, "ledger")
	stage := filepath.Join(ledgerDir, stagedClaim)

	// a killed archive's staged claim is in the ledger
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, ClaimName), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := claimArchive(target, "add-a", ledgerDir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(claimPath); err != nil || len(b) == 0 || string(b) == "old" {
		t.Fatalf("the claim holds %q, %v; want this process's", b, err)
	}
	if _, err := os.Lstat(stage); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the staged claim is left in the ledger: %v", err)
	}
	// a second claim is refused
	if _, err := claimArchive(target, "add-a", ledgerDir); !errors.As(err, new(*Blocked)) {
		t.Fatalf("a second claim: %v, want *Blocked", err)
	}
	release()
	if _, err := os.Lstat(archive); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("release left the archive folder it made: %v", err)
	}

	// the folder there: the claim is linked in, the folder stays
	if err := os.Mkdir(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	release, err = claimArchive(target, "add-a", ledgerDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(claimPath); err != nil {
		t.Fatal(err)
	}
	release()
	if _, err := os.Lstat(claimPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("release left the claim: %v", err)
	}
	if _, err := os.Stat(archive); err != nil {
		t.Errorf("release removed the folder it did not make: %v", err)
	}

	// a ledger path that cannot be a folder: the claim is made in place
	blocked := filepath.Join(root, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	release, err = claimArchive(target, "add-a", blocked)
	if err != nil {
		t.Fatalf("claim with no ledger to stage in: %v", err)
	}
	if _, err := os.Stat(claimPath); err != nil {
		t.Fatal(err)
	}
	release()
}
