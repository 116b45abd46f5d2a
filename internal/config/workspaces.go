package config

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// WorkspacesEnv names the variable that sets where task workspaces are
// created; it wins over [kaisen] workspaces-dir.
const WorkspacesEnv = "SPECSTACK_WORKSPACES"

// WorkspacesBase is the directory holding every repository's workspace
// folder: $SPECSTACK_WORKSPACES when it is an absolute path, else
// [kaisen] workspaces-dir, else $TMPDIR/jj-workspaces. A relative
// $SPECSTACK_WORKSPACES is taken from the current directory. cfg may be
// nil.
func WorkspacesBase(cfg *Config) string {
	if v := os.Getenv(WorkspacesEnv); v != "" {
		if abs, err := filepath.Abs(v); err == nil {
			return abs
		}
	}
	if cfg != nil && cfg.Kaisen.WorkspacesDir != "" {
		return filepath.Clean(cfg.Kaisen.WorkspacesDir)
	}
	return filepath.Join(os.TempDir(), "jj-workspaces")
}

// WorkspacesDir is where the task workspaces of the repository at root
// are created: <base>/<root's name>-<8 hex digits of its path's SHA-256>,
// outside every working copy.
func WorkspacesDir(cfg *Config, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(WorkspacesBase(cfg), filepath.Base(root)+"-"+hex.EncodeToString(sum[:4]))
}
