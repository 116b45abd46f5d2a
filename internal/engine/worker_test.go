package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"
)

// TestRunJobDigest: a job's digest is of what the command printed, not of
// the log's own header lines, so the same output gives the same digest.
func TestRunJobDigest(t *testing.T) {
	sum := sha256.Sum256([]byte("out\n"))
	want := hex.EncodeToString(sum[:])
	dir := t.TempDir()
	for _, log := range []string{"a.log", "b.log", "a.log"} {
		res := RunJob(t.Context(), Job{Command: "echo out", Dir: dir, Role: "test", Task: "1", Log: filepath.Join(dir, log)})
		if res.Err != nil || res.Digest != want {
			t.Errorf("%s: digest %s, err %v; want %s", log, res.Digest, res.Err, want)
		}
	}
}

// Every worker has a deadline: none configured (or a malformed one, which
// the verbs refuse first) is DefaultWorkerTimeout.
func TestWorkerTimeout(t *testing.T) {
	for s, want := range map[string]time.Duration{"": DefaultWorkerTimeout, "0s": DefaultWorkerTimeout, "-5m": DefaultWorkerTimeout, "soon": DefaultWorkerTimeout, "30m": 30 * time.Minute} {
		if got := WorkerTimeout(s); got != want {
			t.Errorf("WorkerTimeout(%q) = %v, want %v", s, got, want)
		}
	}
}
