package openspec_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/internal/xec"
)

// batchTimeout bounds one invocation in a batch process, as
// openspec.Run's default bounds a separate one.
const batchTimeout = 2 * time.Minute

// batchRuns is how many invocations a batch process serves before it is
// replaced: each run keeps its own instance of the CLI's modules.
const batchRuns = 120

// batchProc is one `node testdata/batch.mjs` process.
type batchProc struct {
	cmd     *exec.Cmd
	req     *os.File
	resp    *bufio.Reader
	respF   *os.File
	stderr  *lockedWriter // the process's stderr, its first 64 KiB
	runs    int
	waitErr chan error
}

// batchPool hands out batch processes: at most cap(sem) run at once, and
// an idle one is reused before another is started.
type batchPool struct {
	sem  chan struct{}
	mu   sync.Mutex
	idle []*batchProc
}

var (
	poolOnce sync.Once
	pool     *batchPool
)

// batchWorkers is how many batch processes run at once: one per CPU, at
// most 4 (each runs one invocation at a time).
func batchWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0), 4))
}

func getPool() *batchPool {
	poolOnce.Do(func() {
		pool = &batchPool{sem: make(chan struct{}, batchWorkers())}
	})
	return pool
}

// batchScript is the path of testdata/batch.mjs.
func batchScript() (string, error) {
	return filepath.Abs(filepath.Join("testdata", "batch.mjs"))
}

func startBatch() (*batchProc, error) {
	bin, err := openspec.Path()
	if err != nil {
		return nil, err
	}
	script, err := batchScript()
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("batch mode needs node on PATH (PARITY_BATCH=off runs one process per invocation): %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stderr := &lockedWriter{b: &strings.Builder{}}
	cmd := exec.Command(node, script, bin)
	// The environment openspec.Run gives a separate process.
	cmd.Env = append(append(os.Environ(), xec.NonInteractiveEnv...), openspec.Env...)
	cmd.ExtraFiles = []*os.File{reqR, respW} // fd 3, fd 4
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %s: %w", node, script, err)
	}
	reqR.Close()
	respW.Close()
	p := &batchProc{cmd: cmd, req: reqW, resp: bufio.NewReaderSize(respR, 1<<20), respF: respR, stderr: stderr, waitErr: make(chan error, 1)}
	go func() { p.waitErr <- cmd.Wait() }()
	return p, nil
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 64<<10 {
		w.b.Write(p)
	}
	return len(p), nil
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (p *batchProc) stop() {
	p.req.Close()
	select {
	case <-p.waitErr:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.waitErr
	}
	p.respF.Close()
}

type batchRequest struct {
	Dir  string            `json:"dir"`
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
}

type batchAnswer struct {
	Stdout []byte `json:"stdout"` // base64 in JSON
	Stderr []byte `json:"stderr"`
	Code   int    `json:"code"`
}

// call runs one invocation in p. An error means p is unusable.
func (p *batchProc) call(r batchRequest) (batchAnswer, error) {
	line, err := json.Marshal(r)
	if err != nil {
		return batchAnswer{}, err
	}
	if _, err := p.req.Write(append(line, '\n')); err != nil {
		return batchAnswer{}, fmt.Errorf("send to batch process: %w (its stderr: %s)", err, p.stderr)
	}
	type result struct {
		a   batchAnswer
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := p.resp.ReadBytes('\n')
		if err != nil {
			done <- result{err: fmt.Errorf("read from batch process: %w (its stderr: %s)", err, p.stderr)}
			return
		}
		var a batchAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			done <- result{err: fmt.Errorf("batch process answered %q: %w", b, err)}
			return
		}
		done <- result{a: a}
	}()
	select {
	case r := <-done:
		p.runs++
		return r.a, r.err
	case <-time.After(batchTimeout):
		_ = p.cmd.Process.Kill()
		return batchAnswer{}, fmt.Errorf("openspec %s: no answer from the batch process after %s", strings.Join(r.Args, " "), batchTimeout)
	}
}

// run runs one invocation of the CLI in a batch process: stdout, stderr
// with the allow-listed lines dropped (as openspec.Run drops them) and
// the exit code.
func (bp *batchPool) run(dir string, env map[string]string, args []string) (stdout, stderr string, code int, err error) {
	bp.sem <- struct{}{}
	defer func() { <-bp.sem }()
	var p *batchProc
	bp.mu.Lock()
	if n := len(bp.idle); n > 0 {
		p, bp.idle = bp.idle[n-1], bp.idle[:n-1]
	}
	bp.mu.Unlock()
	if p != nil && p.runs >= batchRuns {
		p.stop()
		p = nil
	}
	if p == nil {
		if p, err = startBatch(); err != nil {
			return "", "", -1, err
		}
	}
	a, err := p.call(batchRequest{Dir: dir, Args: args, Env: env})
	if err != nil {
		p.stop()
		return "", "", -1, err
	}
	bp.mu.Lock()
	bp.idle = append(bp.idle, p)
	bp.mu.Unlock()
	return string(a.Stdout), filterStderr(string(a.Stderr)), a.Code, nil
}

// stopAll ends every idle batch process.
func (bp *batchPool) stopAll() {
	bp.mu.Lock()
	defer bp.mu.Unlock()
	for _, p := range bp.idle {
		p.stop()
	}
	bp.idle = nil
}

// dropped names the allow-listed lines of s, in order.
func dropped(s string) []string {
	var names []string
	for _, line := range strings.SplitAfter(s, "\n") {
		if f, ok := openspec.Match(line); ok && line != "" {
			names = append(names, f.Name)
		}
	}
	return names
}

// filterStderr drops the allow-listed lines (openspec.Harmless) as
// openspec.Run does.
func filterStderr(s string) string {
	var b strings.Builder
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		s = s[len(line):]
		if _, ok := openspec.Match(line); !ok {
			b.WriteString(line)
		}
	}
	return b.String()
}

// batchMode reports whether the real CLI runs in batch processes (the
// default) or one process per invocation (PARITY_BATCH=off).
func batchMode() bool {
	return os.Getenv("PARITY_BATCH") != "off"
}

// batchOpenSpec runs the real OpenSpec CLI in a batch process.
func batchOpenSpec(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	env := map[string]string{}
	for _, kv := range isolated(t) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out, errOut, code, err := getPool().run(dir, env, args)
	if err != nil {
		t.Fatalf("openspec %v: %v", args, err)
	}
	return out, errOut, code
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pool != nil {
		pool.stopAll()
	}
	if !cacheOff() {
		if err := pruneCache(); err != nil {
			fmt.Fprintf(os.Stderr, "prune the parity cache: %v\n", err)
		}
	}
	os.Exit(code)
}

// TestBatchMatchesProcess runs the same invocations as processes of their
// own and, one after the other, in one batch process, and requires the
// same stdout, stderr (allow-listed lines dropped), exit code and tree
// left behind: the batch runner changes how often Node starts, not what
// the CLI prints or does. The invocations cover each verb the parity tests
// run, success and refusal, exits through process.exit (commander's
// unknown option, archive's refusal) and through process.exitCode, and a
// warning the CLI prints once per process, twice (a batch that shared
// that module's state would print it once).
func TestBatchMatchesProcess(t *testing.T) {
	t.Parallel() // beside the other suites running the CLI (batchWorkers bounds them)
	durationMs := regexp.MustCompile(`"durationMs": \d+`)
	requireOpenSpec(t)
	rules := func(t *testing.T, dir string) {
		write(t, dir, "openspec/config.yaml", "schema: spec-driven\nrules:\n  tasks: \"one string\"\n  nosuch:\n    - a rule\n")
		write(t, dir, "openspec/changes/x/proposal.md", "## Why\nA reason.\n")
		stampTree(t, dir)
	}
	fromCorpus := func(name string) func(*testing.T, string) {
		return func(t *testing.T, dir string) { extract(t, filepath.Join(corpusDir, name), dir) }
	}
	cases := []struct {
		setup func(*testing.T, string)
		args  []string
	}{
		{fromCorpus("23-multiple-changes.txtar"), []string{"list", "--json"}},
		{fromCorpus("23-multiple-changes.txtar"), []string{"list", "--specs", "--json"}},
		{fromCorpus("23-multiple-changes.txtar"), []string{"list"}},
		{fromCorpus("23-multiple-changes.txtar"), []string{"validate", "gamma", "--json"}},
		{fromCorpus("23-multiple-changes.txtar"), []string{"validate", "alpha", "--strict"}},
		{fromCorpus("23-multiple-changes.txtar"), []string{"archive", "alpha", "--yes"}},
		{fromCorpus("43-refused-with-warnings.txtar"), []string{"archive", "mixed", "--yes"}},
		{fromCorpus("37-metadata-problems.txtar"), []string{"status", "--change", "bad-marker", "--json"}},
		{fromCorpus("31-project-schema.txtar"), []string{"status", "--change", "lean-change", "--json"}},
		{fromCorpus("31-project-schema.txtar"), []string{"validate", "no-such-change"}},
		{fromCorpus("31-project-schema.txtar"), []string{"list", "--no-such-option"}},
		{rules, []string{"instructions", "tasks", "--change", "x"}},
		{rules, []string{"instructions", "tasks", "--change", "x"}},
	}
	p, err := startBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	for _, c := range cases {
		a, b := t.TempDir(), t.TempDir()
		c.setup(t, a)
		c.setup(t, b)
		// The separate processes' results may come from the parity cache
		// (keyed, among the rest, by this runner); the batch always runs.
		// The names of the dropped lines travel after a NUL in stderr.
		wantOut, wantErr, wantCode, err := cachedRun(a, c.args, false, func() (string, string, int, error) {
			var wo, we bytes.Buffer
			res, err := openspec.Run(t.Context(), openspec.Cmd{Args: c.args, Dir: a, Env: isolated(t), Stdout: &wo, Stderr: &we})
			return wo.String(), we.String() + "\x00" + strings.Join(res.Dropped, ","), res.ExitCode, err
		})
		if err != nil {
			t.Fatal(err)
		}
		wantErr, wantDropped, _ := strings.Cut(wantErr, "\x00")
		env := map[string]string{}
		for _, kv := range isolated(t) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		got, err := p.call(batchRequest{Dir: b, Args: c.args, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		gotOut, gotErr := string(got.Stdout), filterStderr(string(got.Stderr))
		if w, g := wantDropped, strings.Join(dropped(string(got.Stderr)), ","); w != g {
			t.Errorf("openspec %v: allow-listed stderr lines: process %q, batch %q", c.args, w, g)
		}
		ra, _ := filepath.EvalSymlinks(a)
		rb, _ := filepath.EvalSymlinks(b)
		norm := func(s, dir, real string) string {
			s = strings.ReplaceAll(strings.ReplaceAll(s, real, "ROOT"), dir, "ROOT")
			return durationMs.ReplaceAllString(s, `"durationMs": N`) // how long validate took
		}
		if norm(wantOut, a, ra) != norm(gotOut, b, rb) || norm(wantErr, a, ra) != norm(gotErr, b, rb) || wantCode != got.Code {
			t.Errorf("openspec %v:\nprocess: exit %d\nstdout:\n%s\nstderr:\n%s\nbatch: exit %d\nstdout:\n%s\nstderr:\n%s", c.args, wantCode, wantOut, wantErr, got.Code, gotOut, gotErr)
		}
		if d := diffTrees(tree(t, a), tree(t, b)); d != "" {
			t.Errorf("openspec %v: trees differ (openspec = process, jj-openspec = batch):\n%s", c.args, d)
		}
	}
}
