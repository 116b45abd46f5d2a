package e2e

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestArchiveKilled kills a 400-spec archive (SIGKILL, and now and then
// SIGTERM) at random instants, then runs `jj-openspec list`: the tree must
// then be either byte-identical to an uninterrupted archive or untouched.
// Trials go on until at least three kills landed inside the write phase
// (the tree was half-written when the process died).
func TestArchiveKilled(t *testing.T) {
	isolate(t)
	const specs = 400
	template := bigRepo(t, specs, "big")
	untouched := snapshot(t, template)

	// the uninterrupted run, timed
	want := t.TempDir()
	copyTree(t, template, want)
	began := time.Now()
	if r := runIn(want, "jj-openspec", "archive", "big", "--yes"); r.code != 0 {
		t.Fatalf("archive: exit %d\n%s", r.code, r.stderr)
	}
	took := time.Since(began)
	archived := snapshot(t, want)
	t.Logf("an uninterrupted archive of %d specs takes %s", specs, took)

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)
	midway, finished := 0, 0
	for trial := 0; trial < 60 && midway < 3; trial++ {
		dir := t.TempDir()
		copyTree(t, template, dir)
		delay := time.Duration(rng.Int64N(int64(took) + 1))
		sig := syscall.SIGKILL
		if trial%4 == 3 {
			sig = syscall.SIGTERM
		}
		cmd, out, errb := start(dir, "jj-openspec", "archive", "big", "--yes")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(sig)
		killed := finish(cmd, out, errb, cmd.Wait())

		before := snapshot(t, dir)
		half := len(diffTrees(before, untouched)) > 0 && len(diffTrees(before, archived)) > 0
		if half || journalLeft(dir) {
			midway++
		}
		r := runIn(dir, "jj-openspec", "list")
		if r.code != 0 {
			t.Fatalf("trial %d (%s after %s, archive exit %d): list: exit %d\n%s", trial, sig, delay, killed.code, r.code, r.stderr)
		}
		after := snapshot(t, dir)
		switch {
		case len(diffTrees(after, archived)) == 0:
			finished++
			if half && !strings.Contains(r.stderr, "finished the interrupted archive of \"big\"") {
				t.Errorf("trial %d: list finished the archive without saying so on stderr:\n%s", trial, r.stderr)
			}
		case len(diffTrees(after, untouched)) == 0:
		default:
			d := diffTrees(after, archived)
			t.Fatalf("trial %d (%s after %s, archive exit %d): the tree is neither archived nor untouched: %d path(s) differ from the archived tree, e.g. %v\nlist stderr: %s",
				trial, sig, delay, killed.code, len(d), d[:min(5, len(d))], r.stderr)
		}
		if journalLeft(dir) {
			t.Fatalf("trial %d: the journal is still there after list", trial)
		}
	}
	t.Logf("%d kill(s) landed mid-archive, %d tree(s) ended archived", midway, finished)
	if midway == 0 {
		t.Fatal("no kill landed inside the write phase in 60 trials")
	}
}

// journalLeft reports whether an archive journal is in the repository's
// jj-openspec ledger directory.
func journalLeft(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".jj", "specstack", "jj-openspec", "archive-journal", "journal.toml"))
	return err == nil
}
