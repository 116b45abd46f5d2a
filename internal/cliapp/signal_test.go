package cliapp_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
)

// TestMain turns the test binary into a tool when CLIAPP_BLOCK_ON is set
// (TestSignalEndsBlockedProcess runs it so): its only command blocks
// opening that FIFO (a read that never returns), after asking its context
// whether it is cancelled, as every command that runs a child or waits
// does, unless CLIAPP_IGNORE_CONTEXT is set. Otherwise it runs the tests.
func TestMain(m *testing.M) {
	fifo := os.Getenv("CLIAPP_BLOCK_ON")
	if fifo == "" {
		os.Exit(m.Run())
	}
	s := cliapp.Spec{Name: "tool", Commands: []*cli.Command{{
		Name: "block",
		Action: func(c *cli.Context) error {
			if os.Getenv("CLIAPP_IGNORE_CONTEXT") == "" && c.Context.Err() != nil {
				return c.Context.Err()
			}
			os.Stdout.WriteString("ready\n")
			_, err := os.ReadFile(fifo)
			return err
		},
	}}}
	os.Exit(cliapp.Run(s, []string{"tool", "block"}, os.Stdout, os.Stderr))
}

// startBlocked starts the test binary as the blocking tool (see TestMain)
// with env added, and waits until it is about to block.
func startBlocked(t *testing.T, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "CLIAPP_BLOCK_ON="+fifo), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("helper did not start: %q %s", line, errb.String())
	}
	time.Sleep(100 * time.Millisecond) // let it block in open(2)
	return cmd, &errb
}

// TestSignalEndsUnaskedCommandAtOnce: a command that never asked its
// context whether it is cancelled has no signal handling installed (it
// costs three threads), so SIGTERM ends it at once, by the signal.
func TestSignalEndsUnaskedCommandAtOnce(t *testing.T) {
	cmd, errb := startBlocked(t, "CLIAPP_IGNORE_CONTEXT=1")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("wait: %v", err)
		}
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("ended with %v, want killed by SIGTERM; stderr:\n%s", err, errb.String())
		}
	case <-time.After(cliapp.StopGrace / 2):
		t.Fatalf("still running %s after SIGTERM: signal handling was installed though nothing asked for it", cliapp.StopGrace/2)
	}
}

// TestSignalEndsBlockedProcess sends SIGTERM (once, and twice) to a real
// process blocked on I/O: it must end with exit 10 (interrupted), after
// the grace period for one signal and at once for a second.
func TestSignalEndsBlockedProcess(t *testing.T) {
	tests := []struct {
		name    string
		signals int
		within  time.Duration
	}{
		{"one SIGTERM", 1, cliapp.StopGrace + 5*time.Second},
		{"two SIGTERMs", 2, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, errb := startBlocked(t)
			began := time.Now()
			for range tt.signals {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				took := time.Since(began)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != int(exitcode.Interrupted) {
					t.Fatalf("exit %v, want %d; stderr:\n%s", err, exitcode.Interrupted, errb.String())
				}
				if took > tt.within {
					t.Errorf("ended after %s, want within %s", took, tt.within)
				}
				if !strings.Contains(errb.String(), "tool: interrupted") {
					t.Errorf("stderr does not say it was interrupted:\n%s", errb.String())
				}
			case <-time.After(tt.within + 10*time.Second):
				t.Fatalf("still running %s after SIGTERM while blocked on I/O", time.Since(began).Round(time.Second))
			}
		})
	}
}
