package explore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Explore records are listed by project.LedgerNames: records written
// read back, in name order.
func TestRecordFoldersListed(t *testing.T) {
	dir := t.TempDir()
	ids := map[string]string{"zeta": "0000000f", "alpha": "0000000a"}
	for _, c := range []string{"zeta", "alpha"} {
		if err := writeExplore(dir, &ExploreRun{Workspace: "openspec-explore-" + ids[c], State: ExploreRunning, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
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
