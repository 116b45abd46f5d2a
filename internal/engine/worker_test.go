package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
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
