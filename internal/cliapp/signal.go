package cliapp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
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

// interruptCtx is a command's context: cancelled by the first SIGINT or
// SIGTERM, with the forced exit described at StopGrace.
//
// The signal handling is installed the first time anything asks the
// context whether it is cancelled (Done or Err: every child process, lock
// wait, worker and derived context does). A command that never asks, such
// as list or validate reading a few files, keeps the default disposition
// and a signal ends it at once, as it would a kill -9, which every write
// of specstack survives. Installing it costs a process three threads
// (os/signal's receiver, and the locked thread and template thread it
// starts), a tenth of a quick command's run time.
type interruptCtx struct {
	context.Context
	cancel context.CancelFunc
	name   string
	stderr io.Writer

	once  sync.Once
	sigs  chan os.Signal
	done  chan struct{}
	armed bool // written once under once, read after the command returned
}

// interruptible returns a command's context (see interruptCtx); stop
// disarms it.
func interruptible(name string, stderr io.Writer) (ctx *interruptCtx, stop func()) {
	inner, cancel := context.WithCancel(context.Background())
	c := &interruptCtx{Context: inner, cancel: cancel, name: name, stderr: stderr}
	return c, func() {
		c.once.Do(func() {}) // no arming after this
		if c.armed {
			signal.Stop(c.sigs)
			close(c.done)
		}
		cancel()
	}
}

// Done arms the signal handling and returns the context's channel.
func (c *interruptCtx) Done() <-chan struct{} {
	c.once.Do(c.arm)
	return c.Context.Done()
}

// Err arms the signal handling and returns the context's error.
func (c *interruptCtx) Err() error {
	c.once.Do(c.arm)
	return c.Context.Err()
}

// interrupted reports whether a signal cancelled the context, without
// arming it.
func (c *interruptCtx) interrupted() bool {
	c.once.Do(func() {})
	return c.armed && c.Context.Err() != nil
}

func (c *interruptCtx) arm() {
	c.armed = true
	c.sigs = make(chan os.Signal, 2)
	c.done = make(chan struct{})
	signal.Notify(c.sigs, os.Interrupt, syscall.SIGTERM)
	go c.watch()
}

func (c *interruptCtx) watch() {
	var first os.Signal
	select {
	case first = <-c.sigs:
	case <-c.done:
		return
	}
	c.cancel()
	why := fmt.Sprintf("still running %s after %s", StopGrace, first)
	select {
	case again := <-c.sigs:
		why = "a second " + again.String()
	case <-time.After(StopGrace):
	case <-c.done:
		return
	}
	fmt.Fprintf(c.stderr, "%s: interrupted (%s): exiting without waiting for the blocked operation\n", c.name, why)
	os.Exit(int(exitcode.Interrupted))
}
