package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestStopOrphanOnlyWorkers: a pid file naming a process group that is
// not a worker's (a reused pid, or a number written there by anything
// else) kills nothing; a group started for that pid file is killed.
func TestStopOrphanOnlyWorkers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "task-1.pid")
	start := func(env []string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command("sh", "-c", "sleep 60")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	exited := func(cmd *exec.Cmd) bool {
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
			return true
		case <-time.After(2 * time.Second):
			return false
		}
	}

	other := start(nil) // someone else's group
	if StopOrphan(pidFile) {
		t.Error("StopOrphan killed a process group that is no worker's")
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("the other group's leader is gone: %v", err)
	}
	other2 := start([]string{"SPECSTACK_PIDFILE=" + pidFile + ".other"}) // another worker's
	if StopOrphan(pidFile) {
		t.Error("StopOrphan killed another pid file's worker")
	}
	if err := syscall.Kill(other2.Process.Pid, 0); err != nil {
		t.Errorf("the other worker is gone: %v", err)
	}

	worker := start([]string{"SPECSTACK_PIDFILE=" + pidFile})
	if !StopOrphan(pidFile) {
		t.Fatal("StopOrphan did not stop the worker its pid file names")
	}
	if !exited(worker) {
		t.Error("the worker still runs after StopOrphan")
	}
}
