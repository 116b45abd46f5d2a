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
// folder: $SPECSTACK_WORKSPACES, else [kaisen] workspaces-dir, else
// $TMPDIR/jj-workspaces. Load refuses a relative $SPECSTACK_WORKSPACES
// (it would put workspaces wherever the command ran, a working copy
// too); here one is passed over. cfg may be nil.
func WorkspacesBase(cfg *Config) string {
	dir, _ := workspacesBase(cfg)
	return dir
}

// WorkspacesSetting names, for a person, the setting WorkspacesBase(cfg)
// comes from: "$SPECSTACK_WORKSPACES", "[kaisen] workspaces-dir in
// FILE" (without " in FILE" for a configuration Load did not read), or
// "" when neither is set and the base is the default.
func WorkspacesSetting(cfg *Config) string {
	_, setting := workspacesBase(cfg)
	return setting
}

func workspacesBase(cfg *Config) (dir, setting string) {
	if v := os.Getenv(WorkspacesEnv); filepath.IsAbs(v) {
		return filepath.Clean(v), "$" + WorkspacesEnv
	}
	if cfg != nil && cfg.Kaisen.WorkspacesDir != "" {
		setting = "[kaisen] workspaces-dir"
		if cfg.workspacesDirFile != "" {
			setting += " in " + cfg.workspacesDirFile
		}
		return filepath.Clean(cfg.Kaisen.WorkspacesDir), setting
	}
	return filepath.Join(os.TempDir(), "jj-workspaces"), ""
}

// WorkspacesDir is where the task workspaces of the repository at root
// are created: <base>/<root's name>-<8 hex digits of its path's SHA-256>,
// outside every working copy.
func WorkspacesDir(cfg *Config, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(WorkspacesBase(cfg), filepath.Base(root)+"-"+hex.EncodeToString(sum[:4]))
}
