package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// These tests run the real agent CLIs (claude, codex: testdata/tools/
// install-agents puts them on PATH in `make test`) against the fake. They
// skip when one is missing, and fail then with REQUIRE_AGENTS=1.

// agentRun is one agent process against a fake server.
type agentRun struct {
	t    *testing.T
	base string
	home string
	log  string
	stop func()
}

// startFake serves scenario for the agent runs of a test, each with the
// same private HOME (and CODEX_HOME in it).
func startFake(t *testing.T, scenario string) *agentRun {
	t.Helper()
	sc, err := ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &agentRun{t: t, home: filepath.Join(dir, "home"), log: filepath.Join(dir, "requests.log")}
	if err := os.MkdirAll(filepath.Join(r.home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.base, r.stop, err = Listen(NewServer(sc, r.log, filepath.Join(dir, "state.json")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.stop)
	return r
}

// run runs name args in dir with the environment `fakemodel run` gives,
// and returns its stdout; a failure fails the test.
func (r *agentRun) run(dir, name string, args ...string) []byte {
	r.t.Helper()
	out, err := r.output(dir, name, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// output is run for any goroutine: it returns the failure.
func (r *agentRun) output(dir, name string, args ...string) ([]byte, error) {
	env := append(Env(r.base), "HOME="+r.home, "CODEX_HOME="+filepath.Join(r.home, ".codex"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(r.home, ".claude"), "XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"))
	start := time.Now()
	out, err := xec.Output(r.t.Context(), xec.Cmd{Name: name, Args: args, Dir: dir, Env: env, Timeout: 2 * time.Minute})
	r.t.Logf("%s %s: %v", name, strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		return out, fmt.Errorf("%w\nstdout: %s", err, out)
	}
	return out, nil
}

func (r *agentRun) entries() []Entry {
	r.t.Helper()
	return readLog(r.t, r.log)
}

// claudeResult is the part of `claude -p --output-format json` read here.
type claudeResult struct {
	SessionID        string         `json:"session_id"`
	Result           string         `json:"result"`
	IsError          bool           `json:"is_error"`
	Subtype          string         `json:"subtype"`
	NumTurns         int            `json:"num_turns"`
	TotalCostUSD     float64        `json:"total_cost_usd"`
	StructuredOutput map[string]any `json:"structured_output"`
	Usage            struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	PermissionDenials []any `json:"permission_denials"`
}

func decodeClaude(t *testing.T, out []byte) claudeResult {
	t.Helper()
	var res claudeResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("claude output is not one JSON object: %v\n%s", err, out)
	}
	if res.IsError || res.Subtype != "success" || res.SessionID == "" {
		t.Fatalf("claude result: %s", out)
	}
	return res
}

func TestClaudeWritesResumesAndRetries(t *testing.T) {
	testenv.RequireAgent(t, "claude")
	r := startFake(t, `{"rules":[{"match":"write hello","turns":[
		{"tool":"Write","input":{"file_path":"{cwd}/hello.txt","content":"hello from the fake\n"}},
		{"text":"wrote it","usage":{"input_tokens":300,"output_tokens":50}},
		{"text":"resumed"}]}],
		"fail":[{"status":429,"times":2}]}`)
	ws := t.TempDir()
	res := decodeClaude(t, r.run(ws, "claude", "-p", "write hello", "--output-format", "json", "--permission-mode", "acceptEdits"))
	got, err := os.ReadFile(filepath.Join(ws, "hello.txt"))
	if err != nil || string(got) != "hello from the fake\n" {
		t.Fatalf("hello.txt: %q, %v", got, err)
	}
	if res.Result != "wrote it" || res.NumTurns != 2 || len(res.PermissionDenials) != 0 {
		t.Errorf("result %q, num_turns %d, denials %v", res.Result, res.NumTurns, res.PermissionDenials)
	}
	if res.Usage.InputTokens != DefaultUsage.InputTokens+300 || res.Usage.OutputTokens != DefaultUsage.OutputTokens+50 || res.TotalCostUSD <= 0 {
		t.Errorf("usage %+v, cost %v: want the fake's tokens summed and a cost", res.Usage, res.TotalCostUSD)
	}
	// Two 429s, retried, then the two turns.
	var statuses []int
	for _, e := range r.entries() {
		if e.API != "anthropic" {
			t.Errorf("request %s %s reached the fake", e.Method, e.Path)
		}
		statuses = append(statuses, e.Status)
	}
	if !equal(statuses, []int{429, 429, 200, 200}) {
		t.Errorf("statuses %v, want two 429s then two answers", statuses)
	}

	again := decodeClaude(t, r.run(ws, "claude", "-p", "--resume", res.SessionID, "and again", "--output-format", "json"))
	if again.SessionID != res.SessionID || again.Result != "resumed" {
		t.Errorf("resume: session %s result %q, want %s and the rule's third turn", again.SessionID, again.Result, res.SessionID)
	}
	if e := r.entries(); e[len(e)-1].Turn != 2 || !bytes.Contains(e[len(e)-1].Body, []byte("and again")) {
		t.Errorf("resume request: turn %d, want 2 with the new prompt", e[len(e)-1].Turn)
	}
}

// Two agents at once, each in its own workspace, answered by their own
// rules from one server: nothing is kept between requests.
func TestClaudeInParallel(t *testing.T) {
	testenv.RequireAgent(t, "claude")
	r := startFake(t, `{"rules":[
		{"match":"alpha","turns":[{"tool":"Write","input":{"file_path":"{cwd}/out.txt","content":"alpha\n"}},{"text":"alpha done"}]},
		{"match":"beta","turns":[{"tool":"Write","input":{"file_path":"{cwd}/out.txt","content":"beta\n"}},{"text":"beta done"}]}]}`)
	names := []string{"alpha", "beta"}
	dirs := []string{t.TempDir(), t.TempDir()}
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range names {
		wg.Go(func() {
			outs[i], errs[i] = r.output(dirs[i], "claude", "-p", "do "+names[i], "--output-format", "json", "--permission-mode", "acceptEdits")
		})
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if res := decodeClaude(t, outs[i]); res.Result != name+" done" {
			t.Errorf("%s: result %q", name, res.Result)
		}
		if got, err := os.ReadFile(filepath.Join(dirs[i], "out.txt")); err != nil || string(got) != name+"\n" {
			t.Errorf("%s: out.txt %q, %v", name, got, err)
		}
	}
}

func TestClaudeJSONSchema(t *testing.T) {
	testenv.RequireAgent(t, "claude")
	// The first object misses "verdict": Claude checks it and asks again.
	r := startFake(t, `{"rules":[{"match":"","turns":[
		{"structured":{"findings":[]}},
		{"structured":{"verdict":"block","findings":[{"title":"t"}]}}]}]}`)
	schema := `{"type":"object","properties":{"verdict":{"type":"string"},"findings":{"type":"array"}},"required":["verdict"]}`
	res := decodeClaude(t, r.run(t.TempDir(), "claude", "-p", "review", "--output-format", "json", "--json-schema", schema))
	if res.StructuredOutput["verdict"] != "block" || len(res.StructuredOutput["findings"].([]any)) != 1 {
		t.Errorf("structured_output %v", res.StructuredOutput)
	}
	e := r.entries()
	if len(e) != 2 || !bytes.Contains(e[0].Body, []byte(`"name":"StructuredOutput"`)) {
		t.Fatalf("%d requests; want two offering the StructuredOutput tool", len(e))
	}
	if !bytes.Contains(e[1].Body, []byte("Output does not match required schema")) {
		t.Errorf("the second request does not say the first object was refused")
	}
}

// codex runs codex against r's fake in dir.
func (r *agentRun) codex(dir string, args ...string) []byte {
	r.t.Helper()
	return r.run(dir, "codex", append(CodexArgs(r.base+"/v1"), args...)...)
}

// codexEvents returns the thread id and the agent messages of a --json run.
func codexEvents(t *testing.T, out []byte) (thread string, messages []string) {
	t.Helper()
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("codex --json line %q: %v", line, err)
		}
		switch {
		case ev.Type == "thread.started":
			thread = ev.ThreadID
		case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
			messages = append(messages, ev.Item.Text)
		}
	}
	if thread == "" {
		t.Fatalf("no thread.started in\n%s", out)
	}
	return thread, messages
}

func gitInit(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := xec.Run(t.Context(), xec.Cmd{Name: "git", Args: []string{"init", "-q", dir}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCodexShellPatchAndResume(t *testing.T) {
	testenv.RequireAgent(t, "codex")
	r := startFake(t, `{"rules":[{"match":"build","turns":[
		{"tool":"exec_command","input":{"cmd":"echo hi > {cwd}/a.txt"}},
		{"tool":"apply_patch","input":{"input":"*** Begin Patch\n*** Add File: b.txt\n+patched\n*** End Patch\n"}},
		{"text":"built"},
		{"text":"resumed"}]}]}`)
	ws := gitInit(t)
	last := filepath.Join(t.TempDir(), "last.txt")
	thread, msgs := codexEvents(t, r.codex(t.TempDir(), "exec", "--json", "-s", "workspace-write", "-C", ws, "-o", last, "build it"))
	for name, want := range map[string]string{"a.txt": "hi\n", "b.txt": "patched\n"} {
		if got, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if got, err := os.ReadFile(last); err != nil || string(got) != "built" || len(msgs) != 1 || msgs[0] != "built" {
		t.Errorf("-o file %q (%v), messages %q; want the last message", got, err, msgs)
	}
	var turns []int
	for _, e := range r.entries() {
		turns = append(turns, e.Turn)
	}
	if !equal(turns, []int{0, 1, 2}) {
		t.Errorf("turns %v", turns)
	}

	// resume takes no -C: it runs in the workspace.
	again, msgs := codexEvents(t, r.codex(ws, "exec", "resume", "--json", "-o", last, thread, "once more"))
	if got, _ := os.ReadFile(last); again != thread || string(got) != "resumed" || len(msgs) != 1 {
		t.Errorf("resume: thread %s (want %s), last message %q, messages %q", again, thread, got, msgs)
	}
}

func TestCodexOutputSchemaAfterRateLimits(t *testing.T) {
	testenv.RequireAgent(t, "codex")
	r := startFake(t, `{"rules":[{"match":"review","turns":[{"structured":{"verdict":"pass"}}]}],
		"fail":[{"status":429,"times":2}]}`)
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(dir, "last.json")
	r.codex(dir, "exec", "--skip-git-repo-check", "--output-schema", schema, "-o", last, "review this")
	var got map[string]any
	if data, err := os.ReadFile(last); err != nil || json.Unmarshal(data, &got) != nil || got["verdict"] != "pass" {
		t.Errorf("-o file %q (%v): want the structured object", data, err)
	}
	e := r.entries()
	if len(e) != 3 || e[0].Status != 429 || e[1].Status != 429 || e[2].Status != 200 {
		t.Fatalf("requests %+v, want two 429s then one answer", e)
	}
	if !bytes.Contains(e[2].Body, []byte(`"name":"codex_output_schema"`)) {
		t.Errorf("the request does not carry the schema as text.format")
	}
}
