package engine

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// CrashEnv names the fault-injection variable: when it equals a crash
// point's name the process kills itself with SIGKILL there, exactly as
// `kill -9` would. Tests use it to prove resume; it is never set
// otherwise.
const CrashEnv = "SPECSTACK_CRASH_AT"

func crashPoint(name string) {
	if v := os.Getenv(CrashEnv); v != "" && v == name {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

// CrashPoint kills the process with SIGKILL when CrashEnv names point:
// a binary's own phases use it to prove resume, as the engine's do.
func CrashPoint(point string) { crashPoint(point) }

// PauseEnv names the tests' hold: "POINT:FILE" holds the process at pause
// point POINT, after creating FILE.paused, until FILE exists (at most a
// minute), so a test can run another command in between. It is never set
// otherwise.
const PauseEnv = "SPECSTACK_PAUSE_AT"

// PausePoint holds the process when PauseEnv names point.
func PausePoint(point string) {
	name, file, ok := strings.Cut(os.Getenv(PauseEnv), ":")
	if !ok || name != point || file == "" {
		return
	}
	if f, err := os.Create(file + ".paused"); err == nil {
		f.Close()
	}
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			return
		}
	}
}
