// Package config reads specstack's configuration: the user's
// $XDG_CONFIG_HOME/specstack/config.toml, then specstack.toml at the
// repository root. Later files win field by field; flags win over both.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/confine"
	"github.com/specstack/specstack/internal/regfile"
)

// FileName is the per-repository configuration file.
const FileName = "specstack.toml"

// Config is the merged configuration. Each section belongs to one area of
// the suite and is declared in its own file of this package.
type Config struct {
	Worker   WorkerConfig   `toml:"worker"`
	Kaisen   KaisenConfig   `toml:"kaisen"`
	Review   ReviewConfig   `toml:"review"`
	OpenSpec OpenSpecConfig `toml:"openspec"`
	Stack    StackConfig    `toml:"stack"`
	GitHub   GitHubConfig   `toml:"github"`
	Executor ExecutorConfig `toml:"executor"`

	// Files lists the files read, in order.
	Files []string `toml:"-"`
	// workspacesDirFile is the file whose [kaisen] workspaces-dir the
	// configuration holds (the last of Files to set it), for
	// WorkspacesSetting.
	workspacesDirFile string
}

// WorkerConfig names the commands that carry judgement.
type WorkerConfig struct {
	Command  string `toml:"command"`  // implementer/fixer command, run by sh -c in the workspace
	Reviewer string `toml:"reviewer"` // reviewer command
	Test     string `toml:"test"`     // full test command
	Timeout  string `toml:"timeout"`  // per-worker timeout, a Go duration ("30m")
	// MaxCost stops starting agent jobs once the run's recorded cost (USD)
	// reaches it; 0 means no limit.
	MaxCost float64 `toml:"max-cost"`
	// Presets define agent presets, or amend the built-in ones.
	Presets map[string]agent.Config `toml:"presets"`
}

// UserFile returns the path of the user's configuration file.
func UserFile() string {
	dir, err := XDGDir("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "specstack", "config.toml")
}

// XDGDir is an XDG base directory: $env when set and not empty, else
// fallback (".config", ".local/share") under the home directory.
func XDGDir(env, fallback string) (string, error) {
	if dir := os.Getenv(env); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, filepath.FromSlash(fallback)), nil
}

// readFile reads a configuration file: a regular file only (a FIFO would
// block, a directory is a mistake); the repository's own (root's
// specstack.toml) only through links that stay inside root, since a
// repository can be anyone's and its file names the commands that run.
func readFile(root, p string) ([]byte, error) {
	if root != "" && p == filepath.Join(root, FileName) {
		real, err := confine.Path(root, FileName)
		if err != nil {
			return nil, fmt.Errorf("%w (a repository's %s is read only from inside it)", err, FileName)
		}
		p = real
	}
	b, err := regfile.Read(p)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w (want a TOML file)", err)
	}
	return b, err
}

// Load reads the user file and then root/specstack.toml (root may be "").
// Missing files are skipped; a malformed one is an error naming it.
func Load(root string) (*Config, error) {
	if v := os.Getenv(WorkspacesEnv); v != "" && !filepath.IsAbs(v) {
		return nil, fmt.Errorf("%s=%q: must be an absolute path (task workspaces live outside every working copy): set it to one, or unset it", WorkspacesEnv, v)
	}
	cfg := &Config{}
	paths := []string{UserFile()}
	if root != "" {
		paths = append(paths, filepath.Join(root, FileName))
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		b, err := readFile(root, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", p, err)
		}
		md, err := toml.Decode(string(b), cfg)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w (fix or remove the file)", p, err)
		}
		if keys := md.Undecoded(); len(keys) > 0 {
			return nil, unknownKey(p, keys[0].String())
		}
		if md.IsDefined("github", "timeout") {
			if _, err := ParseTimeout(cfg.GitHub.Timeout); err != nil {
				return nil, fmt.Errorf("config %s: [github] timeout = %q: %w", p, cfg.GitHub.Timeout, err)
			}
		}
		if md.IsDefined("kaisen", "workspaces-dir") {
			if !filepath.IsAbs(cfg.Kaisen.WorkspacesDir) {
				return nil, fmt.Errorf("config %s: [kaisen] workspaces-dir = %q: must be an absolute path (workspaces live outside every working copy)", p, cfg.Kaisen.WorkspacesDir)
			}
			cfg.workspacesDirFile = p
		}
		if md.IsDefined("kaisen", "heartbeat") {
			if d, err := time.ParseDuration(cfg.Kaisen.Heartbeat); err != nil || d < 0 {
				return nil, fmt.Errorf("config %s: [kaisen] heartbeat = %q: not a Go duration (want e.g. 30s, or 0s for none)", p, cfg.Kaisen.Heartbeat)
			}
		}
		if md.IsDefined("executor", "poll") {
			if _, err := ParseTimeout(cfg.Executor.Poll); err != nil {
				return nil, fmt.Errorf("config %s: [executor] poll = %q: %w", p, cfg.Executor.Poll, err)
			}
		}
		if md.IsDefined("executor", "max-parallel") && cfg.Executor.MaxParallel < 0 {
			return nil, fmt.Errorf("config %s: [executor] max-parallel = %d: give a positive number", p, cfg.Executor.MaxParallel)
		}
		if md.IsDefined("worker", "max-cost") && !(cfg.Worker.MaxCost >= 0 && !math.IsInf(cfg.Worker.MaxCost, 1)) {
			return nil, fmt.Errorf("config %s: [worker] max-cost = %v: must be 0 (no limit) or more US dollars", p, cfg.Worker.MaxCost)
		}
		cfg.Files = append(cfg.Files, p)
	}
	// The presets are installed for the process: a worker setting that
	// names one runs that agent, in every workflow.
	if err := agent.Configure(cfg.Worker.Presets); err != nil {
		return nil, fmt.Errorf("config %s: %w", strings.Join(cfg.Files, ", "), err)
	}
	return cfg, nil
}

// ParseTimeout reads a timeout: a positive Go duration ("30s", "2m").
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("not a Go duration (want e.g. 30s or 2m)")
	}
	if d <= 0 {
		return 0, errors.New("must be positive (want e.g. 30s or 2m)")
	}
	return d, nil
}
