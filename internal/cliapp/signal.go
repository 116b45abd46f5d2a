package cliapp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// StopGrace is how long a process may go on after SIGINT or SIGTERM: its
// context is cancelled at once (children are killed, runs record where
// they stopped), and a process still running StopGrace later (blocked on
// I/O that no context reaches, such as opening a FIFO) exits with code
// 10. A second signal exits at once. No write of specstack needs the grace
// to stay consistent: ledger files are replaced atomically and an archive
// is journaled, so an exit at any instant is recovered like a kill -9.
const StopGrace = 2 * xec.WaitDelay

// interruptible returns a context cancelled by the first SIGINT or SIGTERM,
// and arms the forced exit described at StopGrace. stop disarms both.
func interruptible(name string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		cancel()
		why := fmt.Sprintf("still running %s after %s", StopGrace, first)
		select {
		case again := <-sigs:
			why = "a second " + again.String()
		case <-time.After(StopGrace):
		case <-done:
			return
		}
		fmt.Fprintf(stderr, "%s: interrupted (%s): exiting without waiting for the blocked operation\n", name, why)
		os.Exit(int(exitcode.Interrupted))
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
