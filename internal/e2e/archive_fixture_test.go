package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
)

// bigRepo writes an OpenSpec project of n capabilities into a new jj
// repository and one change per name in changes, each adding a
// requirement "<change> <i>" to every capability. It returns the root.
func bigRepo(t *testing.T, n int, changes ...string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"openspec/config.yaml": "schema: spec-driven\n"}
	for i := range n {
		files[fmt.Sprintf("openspec/specs/cap-%03d/spec.md", i)] = fmt.Sprintf(
			"# cap-%03d Specification\n\n## Purpose\nCapability %d of a large project, kept to test archives that touch many specs.\n\n"+
				"## Requirements\n\n### Requirement: Base %d\nThe system SHALL keep base behaviour %d.\n\n#### Scenario: Base\n- **WHEN** it runs\n- **THEN** it works\n", i, i, i, i)
	}
	for _, c := range changes {
		files["openspec/changes/"+c+"/proposal.md"] = "## Why\nA change that touches every capability of the project at once.\n\n## What Changes\n- Everything\n"
		files["openspec/changes/"+c+"/tasks.md"] = "## 1. Work\n- [x] 1.1 Do it\n"
		for i := range n {
			files[fmt.Sprintf("openspec/changes/%s/specs/cap-%03d/spec.md", c, i)] = fmt.Sprintf(
				"## ADDED Requirements\n\n### Requirement: %s %d\nThe system SHALL do %s %d.\n\n#### Scenario: Done\n- **WHEN** asked\n- **THEN** done\n", c, i, c, i)
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "jj", "git", "init", "--no-colocate", ".")
	return dir
}

// isolate gives the test a private HOME and jj/git configuration.
func isolate(t *testing.T) {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
}

func mustRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	res := runIn(dir, name, args...)
	if res.code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), res.code, res.stderr)
	}
	return res.stdout
}

type result struct {
	code           int
	stdout, stderr string
	pid            int
}

// start starts name (a program on PATH, such as jj-openspec, which
// testscript.Main put there) in dir.
func start(dir, name string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
	cmd.WaitDelay = 10 * time.Second
	return cmd, &out, &errb
}

func finish(cmd *exec.Cmd, out, errb *bytes.Buffer, err error) result {
	r := result{code: 0, stdout: out.String(), stderr: errb.String()}
	if cmd.Process != nil {
		r.pid = cmd.Process.Pid
	}
	if err != nil {
		r.code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				r.code = 128 + int(ws.Signal())
			}
		}
	}
	return r
}

func runIn(dir, name string, args ...string) result {
	cmd, out, errb := start(dir, name, args...)
	return finish(cmd, out, errb, cmd.Run())
}

// snapshot maps every file (and directory, with a trailing slash) under
// root/openspec to its content, and every symlink to its target.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	base := filepath.Join(root, "openspec")
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "-> " + target
		case d.IsDir():
			m[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// diffTrees names the paths where a and b differ (at most a few).
func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// copyTree copies src to dst, links as links, but for the entries
// directly in src named in skip.
func copyTree(t *testing.T, src, dst string, skip ...string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case slices.Contains(skip, rel):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
