package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// exits is the scripts' exact exit-code assertion:
//
//	exec exits N COMMAND ARGS...
//
// runs COMMAND with the script's stdin, stdout and stderr and exits 0 when
// it exited with status N, 1 otherwise (saying what it got). SIGINT and
// SIGTERM are passed on to COMMAND, so `kill -TERM` on a background
// `exits` reaches the command under test. TestEveryExitCodeIsScripted
// reads these lines to check that every code of the table is produced.
//
// It is test scaffolding, so it runs the child with os/exec directly:
// internal/xec kills a cancelled child instead of passing signals on.
func exits() {
	os.Exit(runExits(os.Args[1:], os.Stderr))
}

func runExits(args []string, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: exits CODE COMMAND ARGS...")
		return 2
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 || want > 255 {
		fmt.Fprintf(stderr, "exits: %q is not an exit code\n", args[0])
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "exits: start %s: %v\n", args[1], err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			got := 0
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.Exited():
				got = ee.ExitCode()
			case err != nil:
				fmt.Fprintf(stderr, "exits: %s did not exit normally: %v; want exit %d\n", args[1], err, want)
				return 1
			}
			if got != want {
				fmt.Fprintf(stderr, "exits: %s exited %d, want %d\n", args[1], got, want)
				return 1
			}
			return 0
		}
	}
}
