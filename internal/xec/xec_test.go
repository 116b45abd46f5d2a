package xec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A process that outlives its Timeout is killed, and the error says so:
// the bound, and that the deadline (not the program) ended it.
func TestRunTimeout(t *testing.T) {
	err := Run(context.Background(), Cmd{Name: "sleep", Args: []string{"30"}, Timeout: 200 * time.Millisecond})
	if err == nil {
		t.Fatal("sleep 30 under a 200ms timeout succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no result within 200ms, killed") {
		t.Errorf("error %q: want it to wrap context.DeadlineExceeded and say no result within 200ms, killed", err)
	}
	// a context that is cancelled is not called a timeout
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Run(ctx, Cmd{Name: "sleep", Args: []string{"30"}, Timeout: time.Minute})
	if err == nil || strings.Contains(err.Error(), "no result within") || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled without a timeout message", err)
	}
}

// A failed command's argv is printed as sh would read it back: a word
// holding anything sh treats specially (here ;, (, *, a space) quoted.
func TestErrorQuotesArgv(t *testing.T) {
	e := &Error{Argv: []string{"jj", "log", "-r", "trunk()..@", "a;b", "*.go", "x y", "", "it's"}, ExitCode: 1}
	want := `jj log -r 'trunk()..@' 'a;b' '*.go' 'x y' '' 'it'\''s': exit status 1`
	if got := e.Error(); got != want {
		t.Errorf("Error() = %s\nwant      %s", got, want)
	}
}

// A process a Setpgid child leaves running in its group is killed when
// the child exits: it writes nothing afterwards. Without Setpgid it is
// the caller's business (the control shows the helper would have written).
func TestRunKillsLeftovers(t *testing.T) {
	for _, pgid := range []bool{true, false} {
		dir := t.TempDir()
		script := `(sleep 0.3; echo late > late.txt) >/dev/null 2>&1 & echo early > early.txt`
		if err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", script}, Dir: dir, Setpgid: pgid}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if _, err := os.Stat(filepath.Join(dir, "early.txt")); err != nil {
			t.Fatalf("Setpgid %v: the child's own write is missing: %v", pgid, err)
		}
		_, err := os.Stat(filepath.Join(dir, "late.txt"))
		if pgid && err == nil {
			t.Errorf("Setpgid: a helper left behind wrote late.txt after the child exited")
		}
		if !pgid && err != nil {
			t.Errorf("without Setpgid the helper did not write late.txt (%v): the test proves nothing", err)
		}
	}
}
