package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/spec"
)

// A pipeline member's kept pull-request body is read as openPR reads it:
// a proposal that is a link out of the repository is refused, never
// copied into a body a publish command would post; a real one is kept
// and named.
func TestMemberBodyKept(t *testing.T) {
	repo, ledger := t.TempDir(), t.TempDir()
	root := spec.Root{Dir: filepath.Join(repo, "openspec"), Bound: repo}
	archived := filepath.Join(root.ArchiveDir(), "2026-12-06-x")
	if err := os.MkdirAll(archived, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("do not post\n"), 0o600)
	if err := os.Symlink(secret, filepath.Join(archived, "proposal.md")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Root: root, Member: true}
	p := &Plan{Change: "x", Bookmark: "feat/x", NoPush: true}
	if cmd, err := unpublished(env, ledger, p, "2026-12-06-x", PhaseUnpushed); err == nil {
		t.Errorf("a proposal linked out of the repository was kept: %q", cmd)
	}
	if data, err := os.ReadFile(memberBodyFile(ledger)); err == nil {
		t.Errorf("the body file holds %q", data)
	}

	os.Remove(filepath.Join(archived, "proposal.md"))
	os.WriteFile(filepath.Join(archived, "proposal.md"), []byte("# x\n"), 0o644)
	cmd, err := unpublished(env, ledger, p, "2026-12-06-x", PhaseUnpushed)
	if err != nil || !strings.Contains(cmd, "--body-file "+memberBodyFile(ledger)) {
		t.Fatalf("unpublished: %q, %v", cmd, err)
	}
	if data, _ := os.ReadFile(memberBodyFile(ledger)); string(data) != "# x\n" {
		t.Errorf("kept body %q", data)
	}
}
