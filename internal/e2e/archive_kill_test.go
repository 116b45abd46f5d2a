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
			d, u := diffTrees(after, archived), diffTrees(after, untouched)
			t.Fatalf("trial %d (%s after %s, archive exit %d): the tree is neither archived nor untouched: %d path(s) differ from the archived tree, e.g. %v, and %d from the untouched one, e.g. %v\narchive stderr: %s\nlist stderr: %s",
				trial, sig, delay, killed.code, len(d), d[:min(5, len(d))], len(u), u[:min(5, len(u))], killed.stderr, r.stderr)
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

// TestArchiveKilledThenEdited kills archives until one leaves its journal,
// edits a spec it names, and runs `jj-openspec list`: it refuses (exit 1)
// naming the file and writes nothing; once the file is restored, the next
// command finishes the archive.
func TestArchiveKilledThenEdited(t *testing.T) {
	isolate(t)
	const specs = 400
	template := bigRepo(t, specs, "big")
	want := t.TempDir()
	copyTree(t, template, want)
	began := time.Now()
	if r := runIn(want, "jj-openspec", "archive", "big", "--yes"); r.code != 0 {
		t.Fatalf("archive: exit %d\n%s", r.code, r.stderr)
	}
	took := time.Since(began)
	archived := snapshot(t, want)

	spec := filepath.Join("openspec", "specs", "cap-399", "spec.md")
	for trial := range 60 {
		dir := t.TempDir()
		copyTree(t, template, dir)
		cmd, out, errb := start(dir, "jj-openspec", "archive", "big", "--yes")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(took / 4 * time.Duration(1+trial%4))
		_ = cmd.Process.Kill()
		finish(cmd, out, errb, cmd.Wait())
		if !journalLeft(dir) {
			continue
		}
		orig, err := os.ReadFile(filepath.Join(template, spec))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, spec), []byte("edited meanwhile\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		r := runIn(dir, "jj-openspec", "list")
		if r.code != 1 || !strings.Contains(r.stderr, "cannot finish the interrupted archive of \"big\": 1 file changed on disk since it began") ||
			!strings.Contains(r.stderr, "openspec/specs/cap-399/spec.md") {
			t.Fatalf("list with an edited spec: exit %d\n%s", r.code, r.stderr)
		}
		if d := diffTrees(snapshot(t, dir), before); len(d) > 0 {
			t.Fatalf("a refused recovery wrote %v", d)
		}
		if err := os.WriteFile(filepath.Join(dir, spec), orig, 0o644); err != nil {
			t.Fatal(err)
		}
		r = runIn(dir, "jj-openspec", "list")
		if r.code != 0 || !strings.Contains(r.stderr, "finished the interrupted archive of \"big\"") {
			t.Fatalf("list after the restore: exit %d\n%s", r.code, r.stderr)
		}
		if d := diffTrees(snapshot(t, dir), archived); len(d) > 0 {
			t.Fatalf("the finished archive differs from an uninterrupted one at %v", d[:min(5, len(d))])
		}
		return
	}
	t.Fatal("no kill left a journal in 60 trials")
}
