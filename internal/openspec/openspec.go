// Package openspec runs the real OpenSpec CLI (`openspec`, the
// @fission-ai/openspec npm package) for the verbs specstack does not
// implement natively. It checks the binary is on PATH first, keeps the CLI
// off the network (telemetry and update checks disabled), filters only a
// named allow-list of known-harmless stderr lines and preserves the exit
// code exactly.
package openspec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/xec"
)

// Binary is the name of the OpenSpec CLI on PATH.
const Binary = "openspec"

// ErrNotFound reports that the openspec CLI is not on PATH.
var ErrNotFound = errors.New("openspec CLI not found")

// Env keeps the CLI quiet and offline: no telemetry, no update check, no
// prompts, no colour.
var Env = []string{
	"OPENSPEC_TELEMETRY=0",
	"DO_NOT_TRACK=1",
	"OPENSPEC_NO_UPDATE_CHECK=1",
	"OPEN_SPEC_INTERACTIVE=0",
	"OPENSPEC_NO_ANIMATION=1",
	"OPENSPEC_NO_AUTO_CONFIG=1",
	"OPENSPEC_NO_COMPLETIONS=1",
	"CI=1",
	"NO_COLOR=1",
	"FORCE_COLOR=0",
}

// Harmless is the allow-list of stderr lines dropped from the CLI's
// output: messages OpenSpec prints about project configuration that do not
// concern the command's result. Every other line passes through unchanged.
var Harmless = []Filter{
	{Name: "tasks-rules-not-array", Contains: "Rules for 'tasks' must be an array"},
	{Name: "unknown-artifact-id-in-rules", Contains: "Unknown artifact ID in rules"},
}

// Filter names one known-harmless stderr message.
type Filter struct {
	Name     string
	Contains string
}

// Match reports whether line is one of the allow-listed messages.
func Match(line string) (Filter, bool) {
	for _, f := range Harmless {
		if strings.Contains(line, f.Contains) {
			return f, true
		}
	}
	return Filter{}, false
}

// Path returns the openspec binary on PATH, or an error wrapping
// ErrNotFound carrying exit code Missing.
func Path() (string, error) {
	p, err := xec.LookPath(Binary)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Missing, fmt.Errorf("%w on PATH: install it with `npm install -g @fission-ai/openspec@1.13` (or `make install` in the specstack source tree, which installs it beside jj-openspec when npm is there) and retry: %w", ErrNotFound, err))
	}
	return p, nil
}

// Cmd is one invocation of the CLI.
type Cmd struct {
	Args    []string
	Dir     string
	Env     []string  // extra environment variables, after Env
	Stdout  io.Writer // receives stdout as it comes; nil discards
	Stderr  io.Writer // receives stderr minus allow-listed lines; nil discards
	Timeout time.Duration
}

// Result is what a run left: its exit code (0 on success) and the stderr
// lines that were dropped, by filter name.
type Result struct {
	ExitCode int
	Dropped  []string
}

// Run runs the CLI. A non-zero exit is not an error: it is reported in
// Result.ExitCode, so callers can pass it on unchanged. Errors are for a
// missing binary (wrapping ErrNotFound) or a process that could not run.
func Run(ctx context.Context, c Cmd) (Result, error) {
	bin, err := Path()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	stdout := c.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	sink := c.Stderr
	if sink == nil {
		sink = io.Discard
	}
	f := &lineFilter{out: sink}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	runErr := xec.Run(ctx, xec.Cmd{Name: bin, Args: c.Args, Dir: c.Dir, Env: append(append([]string(nil), Env...), c.Env...), Stdout: stdout, Stderr: f, Timeout: timeout})
	flushErr := f.flush()
	res := Result{Dropped: f.dropped}
	if runErr == nil && flushErr != nil {
		return res, fmt.Errorf("run %s %s: write its stderr: %w", Binary, strings.Join(c.Args, " "), flushErr)
	}
	if runErr == nil {
		return res, nil
	}
	if code := xec.ExitCode(runErr); code >= 0 {
		res.ExitCode = code
		return res, nil
	}
	res.ExitCode = -1
	return res, fmt.Errorf("run %s %s: %w", Binary, strings.Join(c.Args, " "), runErr)
}

// Output runs the CLI and returns its stdout and filtered stderr.
func Output(ctx context.Context, dir string, args ...string) (stdout, stderr []byte, res Result, err error) {
	var o, e bytes.Buffer
	res, err = Run(ctx, Cmd{Args: args, Dir: dir, Stdout: &o, Stderr: &e})
	return o.Bytes(), e.Bytes(), res, err
}

// lineFilter passes stderr through line by line, dropping allow-listed
// lines. A final line without '\n' is handled by flush.
type lineFilter struct {
	mu      sync.Mutex
	out     io.Writer
	partial []byte
	dropped []string
}

func (f *lineFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := f.partial[:i+1]
		if err := f.emit(line); err != nil {
			return 0, err
		}
		f.partial = f.partial[i+1:]
	}
}

func (f *lineFilter) emit(line []byte) error {
	if m, ok := Match(string(line)); ok {
		f.dropped = append(f.dropped, m.Name)
		return nil
	}
	_, err := f.out.Write(line)
	return err
}

func (f *lineFilter) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.partial) == 0 {
		return nil
	}
	err := f.emit(f.partial)
	f.partial = nil
	return err
}

// Version returns the CLI's version (`openspec --version`).
func Version(ctx context.Context) (string, error) {
	out, _, res, err := Output(ctx, "", "--version")
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("%s --version: exit status %d", Binary, res.ExitCode)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s --version printed nothing", Binary)
}

// SchemaDir is schema name's directory in the package of the CLI on
// PATH (the built-in schemas: schema.yaml and templates/), when that
// package is @fission-ai/openspec at version; an error otherwise.
func SchemaDir(name, version string) (string, error) {
	bin, err := Path()
	if err != nil {
		return "", err
	}
	entry, err := filepath.EvalSymlinks(bin) // PKG/bin/openspec.js
	if err != nil {
		return "", err
	}
	pkg := filepath.Dir(filepath.Dir(entry))
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", err
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(raw, &meta); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(pkg, "package.json"), err)
	}
	if meta.Name != "@fission-ai/openspec" || meta.Version != version {
		return "", fmt.Errorf("%s is %s %s, not @fission-ai/openspec %s", bin, meta.Name, meta.Version, version)
	}
	return filepath.Join(pkg, "schemas", name), nil
}
