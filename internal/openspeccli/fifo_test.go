package openspeccli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/testenv"
)

const (
	mainSpec = "# auth Specification\n\n## Purpose\nAuthenticate users with passwords so that only known people get in.\n\n## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: Known user\n- **WHEN** a known user logs in\n- **THEN** a session starts\n"
	delta    = "## ADDED Requirements\n\n### Requirement: Logout\nThe system SHALL log users out.\n\n#### Scenario: Logout\n- **WHEN** a user logs out\n- **THEN** the session ends\n"
)

// project writes a small OpenSpec project with one change, c, that
// archives cleanly.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range map[string]string{
		"openspec/specs/auth/spec.md":           mainSpec,
		"openspec/changes/c/proposal.md":        "## Why\nUsers need to leave.\n\n## What Changes\n- Add logout\n",
		"openspec/changes/c/tasks.md":           "## 1. Logout\n- [x] 1.1 Add logout\n",
		"openspec/changes/c/specs/auth/spec.md": delta,
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSoon runs jj-openspec in process under a deadline, so a command that
// blocks on a FIFO fails the test instead of hanging it.
func runSoon(t *testing.T, args ...string) (string, string, exitcode.Code) {
	t.Helper()
	return testenv.RunSoon(t, 20*time.Second, openspeccli.Spec(), append([]string{"jj-openspec"}, args...)...)
}

// TestNonRegularInputs puts a FIFO (or a directory, or a socket) where a
// document belongs: every reader refuses it promptly, exit 6, naming the
// path, and nothing on disk changes.
func TestNonRegularInputs(t *testing.T) {
	tests := []struct {
		name string
		path string // replaced by a non-regular file
		kind string // fifo, dir or socket
		args []string
	}{
		{"list tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"list"}},
		{"list json tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"list", "--json"}},
		{"list tasks socket", "openspec/changes/c/tasks.md", "socket", []string{"list"}},
		{"validate delta fifo", "openspec/changes/c/specs/auth/spec.md", "fifo", []string{"validate", "c"}},
		{"validate delta dir", "openspec/changes/c/specs/auth/spec.md", "dir", []string{"validate", "c"}},
		{"validate stray delta fifo", "openspec/changes/c/specs/auth/notes.md", "fifo", []string{"validate", "c"}},
		{"validate tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"validate", "c"}},
		{"validate main spec fifo", "openspec/specs/auth/spec.md", "fifo", []string{"validate", "c"}},
		{"status tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"status", "c"}},
		{"status metadata fifo", "openspec/changes/c/.openspec.yaml", "fifo", []string{"status", "c"}},
		{"status config fifo", "openspec/config.yaml", "fifo", []string{"status", "c"}},
		{"tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"tasks", "c"}},
		{"archive tasks fifo", "openspec/changes/c/tasks.md", "fifo", []string{"archive", "c"}},
		{"archive delta fifo", "openspec/changes/c/specs/auth/spec.md", "fifo", []string{"archive", "c"}},
		{"archive delta dir", "openspec/changes/c/specs/auth/spec.md", "dir", []string{"archive", "c"}},
		{"archive main spec fifo", "openspec/specs/auth/spec.md", "fifo", []string{"archive", "c"}},
		{"archive main spec dir", "openspec/specs/auth/spec.md", "dir", []string{"archive", "c"}},
		{"archive dry-run main spec fifo", "openspec/specs/auth/spec.md", "fifo", []string{"archive", "--dry-run", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := project(t)
			target := filepath.Join(dir, filepath.FromSlash(tt.path))
			if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			makeNonRegular(t, target, tt.kind)
			before := snapshot(t, dir)
			out, errOut, code := runSoon(t, append([]string{"--repo", dir}, tt.args...)...)
			if code != exitcode.Invalid {
				t.Errorf("exit %d, want %d (invalid)\nstdout: %s\nstderr: %s", code, exitcode.Invalid, out, errOut)
			}
			if !strings.Contains(errOut, target) || !strings.Contains(errOut, "not a regular file") {
				t.Errorf("stderr does not name %s as not a regular file:\n%s", target, errOut)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestListSkipsNonRegularSpecs: list --specs skips a spec.md that is a
// FIFO or a directory, without opening it, as OpenSpec 1.13.2's discovery
// skips it (and walks the directory like any other).
func TestListSkipsNonRegularSpecs(t *testing.T) {
	for _, kind := range []string{"fifo", "dir"} {
		t.Run(kind, func(t *testing.T) {
			dir := project(t)
			target := filepath.Join(dir, "openspec", "specs", "auth", "spec.md")
			if err := os.Remove(target); err != nil {
				t.Fatal(err)
			}
			makeNonRegular(t, target, kind)
			before := snapshot(t, dir)
			out, errOut, code := runSoon(t, "--repo", dir, "list", "--specs")
			if code != exitcode.OK || out != "No specs found.\n" || errOut != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and \"No specs found.\"", code, out, errOut)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// makeNonRegular creates at target a FIFO, a directory (holding one) or a
// unix socket (closed at the end of the test).
func makeNonRegular(t *testing.T, target, kind string) {
	t.Helper()
	switch kind {
	case "fifo":
		if err := syscall.Mkfifo(target, 0o644); err != nil {
			t.Fatal(err)
		}
	case "dir":
		if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	case "socket":
		// A unix socket path must be short: bind it from inside dir.
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: target}); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot lists every path under dir with its kind and, for regular
// files, its content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + fi.Mode().Type().String())
		if fi.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(" " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
