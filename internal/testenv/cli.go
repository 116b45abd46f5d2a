package testenv

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// RunSoon runs the binary s in process with args (args[0] is the program
// name) and returns its stdout, stderr and exit code. A command still
// running after timeout fails the test instead of hanging it (its
// goroutine is abandoned): tests of inputs that could block — a FIFO
// where a file belongs — use it so a regression is a failure.
func RunSoon(t testing.TB, timeout time.Duration, s cliapp.Spec, args ...string) (string, string, exitcode.Code) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	type result struct {
		out, err string
		code     int
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := cliapp.Run(s, args, &out, &errb)
		done <- result{out.String(), errb.String(), code}
	}()
	select {
	case r := <-done:
		return r.out, r.err, exitcode.Code(r.code)
	case <-ctx.Done():
		t.Fatalf("%s still running after %s (blocked?)", strings.Join(args, " "), timeout)
		return "", "", 0
	}
}
