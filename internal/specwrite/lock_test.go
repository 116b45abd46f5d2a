package specwrite

import (
	"io"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/spec"
)

// TestWorkflowsTakeTheLock: every writing workflow takes the project's
// lock itself (a holder makes it exit 3 before it reads the change); a
// dry run takes none and reaches the change (exit 2: there is none).
func TestWorkflowsTakeTheLock(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the project is in no repository
	dir := t.TempDir()
	if _, err := spec.InitLayout(dir); err != nil {
		t.Fatal(err)
	}
	r, err := spec.FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	ldir, err := LedgerDir(r)
	if err != nil {
		t.Fatal(err)
	}
	held, err := ledger.Acquire(ldir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	ctx := t.Context()

	want := func(verb string, err error, code exitcode.Code) {
		t.Helper()
		if got := exitcode.Of(err); got != code {
			t.Errorf("%s: exit %d, want %d (err: %v)", verb, got, code, err)
		}
	}
	_, err = Archive(ctx, r, "gone", ArchiveOptions{})
	want("archive", err, exitcode.Locked)
	_, err = Rebase(ctx, r, "gone", false)
	want("rebase", err, exitcode.Locked)
	_, err = Sync(ctx, r, "gone", false, io.Discard)
	want("sync", err, exitcode.Locked)
	_, _, err = Tick(r, "gone", []string{"1.1"}, true)
	want("tasks check", err, exitcode.Locked)
	_, _, err = Init(ctx, dir)
	want("init", err, exitcode.Locked)

	_, err = Archive(ctx, r, "gone", ArchiveOptions{DryRun: true})
	want("archive --dry-run", err, exitcode.Usage)
	_, err = Sync(ctx, r, "gone", true, io.Discard)
	want("sync --dry-run", err, exitcode.Usage)
}
