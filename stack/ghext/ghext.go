// Package ghext registers gh-specstack with gh as a local extension: a
// directory named gh-specstack holding a link to the executable, installed
// with "gh extension install .".
package ghext

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// DefaultDir is where the local extension directory is kept.
func DefaultDir() (string, error) {
	base, err := config.XDGDir("XDG_DATA_HOME", ".local/share")
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "specstack", "gh-extension", "gh-specstack"), nil
}

// ghMissing says how to get gh: the distribution's package first, else
// the specstack source tree's `make install` (it installs gh when none
// is on PATH).
// ghTimeout bounds each gh process this package runs (it may ask GitHub).
const ghTimeout = 2 * time.Minute

const ghMissing = "gh is not on PATH: install the GitHub CLI from your distribution " +
	"(Debian and Ubuntu: `sudo apt install gh`; Fedora: `sudo dnf install gh`; macOS: `brew install gh`; others: https://cli.github.com), " +
	"or run `make install` in the specstack source tree (it installs gh beside gh-specstack when none is on PATH); then run install-extension again"

// Install links the running executable into dir (DefaultDir when empty)
// and registers it with gh, writing what it did to w. Already registered:
// it says so and changes nothing.
func Install(ctx context.Context, dir string, w io.Writer) error {
	gh, err := xec.LookPath("gh")
	if err != nil {
		return exitcode.New(exitcode.Missing, "%s", ghMissing)
	}
	if dir == "" {
		if dir, err = DefaultDir(); err != nil {
			return err
		}
	}
	if filepath.Base(dir) != "gh-specstack" {
		return exitcode.New(exitcode.Usage, "--dir %s: gh names an extension after its directory, which must be gh-specstack", dir)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this executable: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	link := filepath.Join(dir, "gh-specstack")
	if cur, err := os.Readlink(link); err != nil || cur != exe {
		_ = os.Remove(link)
		if err := os.Symlink(exe, link); err != nil {
			return fmt.Errorf("link %s to %s: %w", link, exe, err)
		}
	}
	out, err := xec.Output(ctx, xec.Cmd{Name: gh, Args: []string{"extension", "list"}, Timeout: ghTimeout})
	if err != nil {
		return exitcode.Wrap(exitcode.Missing, fmt.Errorf("gh extension list (is gh logged in? run gh auth login or set GH_TOKEN): %w", err))
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "gh" && f[1] == "specstack" {
			fmt.Fprintf(w, "gh specstack is already installed (extension directory %s)\n", dir)
			return nil
		}
	}
	if _, err := xec.Output(ctx, xec.Cmd{Name: gh, Args: []string{"extension", "install", "."}, Dir: dir, Timeout: ghTimeout}); err != nil {
		return fmt.Errorf("gh extension install %s: %w", dir, err)
	}
	fmt.Fprintf(w, "installed: gh specstack runs %s (extension directory %s)\n", exe, dir)
	return nil
}
