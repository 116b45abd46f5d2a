package engine

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// workerGroup reports whether process group pgid holds a process started
// as a worker for pidFile: one whose environment (as it was exec'd) has
// SPECSTACK_PIDFILE=pidFile. The group's leader, the worker's shell, is
// looked at first; a leader gone, its group's other processes.
func workerGroup(pgid int, pidFile string) bool {
	want := []byte("\x00SPECSTACK_PIDFILE=" + pidFile + "\x00")
	started := func(pid int) bool {
		if g, err := syscall.Getpgid(pid); err != nil || g != pgid {
			return false
		}
		env, err := readEnviron(pid)
		return err == nil && bytes.Contains(append([]byte{0}, env...), want)
	}
	if started(pgid) {
		return true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != pgid && started(pid) {
			return true
		}
	}
	return false
}

// readEnviron is a process's environment as it was exec'd. A process in
// the middle of an exec (a worker's shell exec'ing its last command)
// shows an empty one for a moment: it is read again, a few times.
func readEnviron(pid int) ([]byte, error) {
	for try := 0; ; try++ {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || len(env) > 0 || try == 4 {
			return env, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
