package osapply

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/ledger"
)

// The three record folders are listed by ledgerNames: records written
// read back, in name order.
func TestRecordFoldersListed(t *testing.T) {
	dir := t.TempDir()
	ids := map[string]string{"zeta": "0000000f", "alpha": "0000000a"}
	for _, c := range []string{"zeta", "alpha"} {
		if err := writeRelay(dir, &RelayRecord{Change: c, State: RelayParked}); err != nil {
			t.Fatal(err)
		}
		d := ledger.New[AuthorRun, AuthorEvent](AuthorRun{Change: c, Verb: "propose"})
		if err := d.Write(authorPath(dir, c)); err != nil {
			t.Fatal(err)
		}
		if err := writeExplore(dir, &ExploreRun{Workspace: "openspec-explore-" + ids[c], State: ExploreRunning, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Relays(dir)
	if err != nil || len(rs) != 2 || rs[0].Change != "alpha" || rs[1].Change != "zeta" {
		t.Errorf("Relays = %v, %v; want alpha, zeta", rs, err)
	}
	as, err := AuthorRuns(dir)
	if err != nil || len(as) != 2 || as[0].Change != "alpha" || as[1].Change != "zeta" {
		t.Errorf("AuthorRuns = %v, %v; want alpha, zeta", as, err)
	}
	// A file explore did not write is no record: its name would be a
	// workspace folder to remove (".." from "...toml").
	for _, f := range []string{"...toml", "notes.toml"} {
		if err := os.WriteFile(filepath.Join(dir, ExploreDir, f), []byte("workspace = \"..\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	es, err := ExploreRuns(dir)
	if err != nil || len(es) != 2 || es[0].Workspace != "openspec-explore-0000000a" || es[1].Workspace != "openspec-explore-0000000f" {
		t.Errorf("ExploreRuns = %v, %v; want openspec-explore-0000000a, openspec-explore-0000000f", es, err)
	}
}
