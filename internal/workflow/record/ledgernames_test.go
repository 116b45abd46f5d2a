package record

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLedgerNames(t *testing.T) {
	dir := t.TempDir()
	if names, err := LedgerNames(dir, "relay"); err != nil || len(names) != 0 {
		t.Fatalf("no folder: got %v, %v; want none, nil", names, err)
	}
	folder := filepath.Join(dir, "relay")
	if err := os.MkdirAll(filepath.Join(folder, "sub.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.toml", "a.toml", ".toml", "notes.md", ".b.toml1234567"} {
		if err := os.WriteFile(filepath.Join(folder, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(folder, "a.toml"), filepath.Join(folder, "link.toml")); err != nil {
		t.Fatal(err)
	}
	names, err := LedgerNames(dir, "relay")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(names, want) {
		t.Errorf("ledgerNames = %q, want %q (regular <name>.toml files only, sorted)", names, want)
	}
}
