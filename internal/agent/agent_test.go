package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	t.Cleanup(func() { Configure(nil) })
	for _, name := range []string{"claude", "codex", " claude "} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("Lookup(%q): not a preset", name)
		}
	}
	for _, cmd := range []string{"claude -p", "sh worker.sh", "", "my-agent"} {
		if _, ok := Lookup(cmd); ok {
			t.Errorf("Lookup(%q) is a preset; a command that is not exactly a preset's name is a shell command", cmd)
		}
	}
	if err := Configure(map[string]Config{"my-agent": {Program: "gemini", Args: []string{"--yolo"}}, "claude": {Allow: []string{"Bash(make test)"}}}); err != nil {
		t.Fatal(err)
	}
	p, ok := Lookup("my-agent")
	if !ok || p.Program != "gemini" || p.Output != OutputText {
		t.Errorf("configured preset: %+v %v", p, ok)
	}
	c, _ := Lookup("claude")
	if !slices.Contains(c.Allow, "Bash(make test)") || c.Program != "claude" || len(c.Deny) == 0 {
		t.Errorf("amended claude: %+v", c)
	}
	if b := builtIn["claude"]; slices.Contains(b.Allow, "Bash(make test)") {
		t.Error("amending claude changed the built-in preset")
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no-program", Config{Args: []string{"x"}}},
		{"bad-output", Config{Program: "x", Args: []string{"y"}, Output: "xml"}},
		{"a/b", Config{Program: "x", Args: []string{"y"}}},
	} {
		if err := Configure(map[string]Config{tc.name: tc.cfg}); err == nil {
			t.Errorf("Configure(%s: %+v) accepted it", tc.name, tc.cfg)
		}
	}
}

// TestInvocationKeepsTextOutOfArgv: the brief reaches the agent on stdin
// only; the argv holds the preset's own words and specstack's paths.
func TestInvocationKeepsTextOutOfArgv(t *testing.T) {
	dir := t.TempDir()
	brief := filepath.Join(dir, "brief.md")
	hostile := "$(rm -rf ~) `touch pwned` ; --dangerously-skip-permissions"
	os.WriteFile(brief, []byte(hostile), 0o644)
	for _, name := range []string{"claude", "codex"} {
		p, _ := Lookup(name)
		j := Job{Preset: p, Role: "implementer", Dir: "/ws", Inputs: Inputs{Brief: brief}, Stem: filepath.Join(dir, name), PIDFile: filepath.Join(dir, "pid")}
		inv, err := j.Start()
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range inv.Argv {
			if strings.Contains(a, "rm -rf") || strings.Contains(a, "dangerously") {
				t.Errorf("%s: argv %q carries the brief", name, inv.Argv)
			}
		}
		if inv.Argv[0] != "sh" || inv.Argv[2] != `echo $$ > "$SPECSTACK_PIDFILE" && exec "$@"` || inv.Argv[4] != name {
			t.Errorf("%s: argv %q: want the pid-recording shell exec'ing the agent as argv", name, inv.Argv)
		}
		prompt, _ := os.ReadFile(inv.Stdin)
		if !strings.Contains(string(prompt), hostile) || !strings.Contains(string(prompt), "Status: DONE") {
			t.Errorf("%s: prompt %s lacks the brief or the status rule", name, prompt)
		}
		if name == "codex" && (!slices.Contains(inv.Argv, "/ws") || inv.Argv[len(inv.Argv)-1] != "-" || inv.LastMessage == "") {
			t.Errorf("codex argv %q: want --cd /ws, the prompt from stdin (-) and a last-message file", inv.Argv)
		}
		if name == "claude" && !slices.Contains(inv.Argv, "Bash(git push:*)") {
			t.Errorf("claude argv %q: want git push denied", inv.Argv)
		}
	}
	// A reviewer gets the schema and is read-only; a resumed session names it.
	p, _ := Lookup("claude")
	j := Job{Preset: p, Role: RoleReviewer, Dir: "/ws", Stem: filepath.Join(dir, "rev"), Schema: Findings}
	inv, err := j.Invocation("x", "sess-1", ".r")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(inv.Argv, "--json-schema") || !slices.Contains(inv.Argv, string(Findings.JSON)) || !slices.Contains(inv.Argv, "sess-1") || !slices.Contains(inv.Argv, "Write") {
		t.Errorf("reviewer argv %q", inv.Argv)
	}
	cp, _ := Lookup("codex")
	j = Job{Preset: cp, Role: RoleReviewer, Dir: "/ws", Stem: filepath.Join(dir, "crev"), Schema: Findings}
	inv, _ = j.Invocation("x", "", "")
	i := slices.Index(inv.Argv, "--output-schema")
	if i < 0 {
		t.Fatalf("codex reviewer argv %q: no --output-schema", inv.Argv)
	}
	if data, _ := os.ReadFile(inv.Argv[i+1]); string(data) != string(Findings.JSON) {
		t.Errorf("codex schema file holds %q", data)
	}
}

func TestFindingsSchema(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(Findings.JSON, &schema); err != nil {
		t.Fatalf("the findings schema is not JSON: %v", err)
	}
	good := `{"confidence": 90, "findings": [{"task": 1, "severity": "important", "file": "a.go", "line": 3, "message": "off by one"}]}`
	out, err := Findings.Validate(json.RawMessage(good))
	if err != nil || !strings.Contains(string(out), `"off by one"`) {
		t.Errorf("good answer: %s %v", out, err)
	}
	if out, err := Findings.Validate(json.RawMessage("```json\n{\"confidence\": 100, \"findings\": []}\n```")); err != nil || !strings.Contains(string(out), `"findings": []`) {
		t.Errorf("fenced empty answer: %s %v", out, err)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"findings": []}`, `{"confidence": 101, "findings": []}`,
		`{"confidence": 90}`, `{"confidence": 90, "findings": [{"severity": "nit", "message": "x"}]}`,
		`{"confidence": 90, "findings": [{"severity": "critical", "message": " "}]}`,
		`{"confidence": 90, "findings": [], "passed": true}`, `looks good to me`} {
		if _, err := Findings.Validate(json.RawMessage(bad)); err == nil {
			t.Errorf("Validate(%q) passed; a malformed answer is never a review", bad)
		}
	}
}

func TestParseClaude(t *testing.T) {
	out := []byte(`{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"did it\nStatus: DONE","session_id":"abc","total_cost_usd":0.0123,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":7},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"git push"}}]}` + "\n")
	s, err := parseClaude(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Final != "did it\nStatus: DONE" || s.Usage.SessionID != "abc" || s.Usage.Turns != 2 || s.Usage.InputTokens != 15 || s.Usage.OutputTokens != 7 || s.Usage.CostUSD != 0.0123 {
		t.Errorf("parsed %+v", s)
	}
	if len(s.Denials) != 1 || s.Denials[0].Tool != "Bash" || !strings.Contains(s.Denials[0].String(), "git push") {
		t.Errorf("denials %+v", s.Denials)
	}
	if _, err := parseClaude([]byte("Error: something\n")); err == nil {
		t.Error("no result object parsed")
	}
	s, _ = parseClaude([]byte(`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"API Error: 429 rate_limit_error","session_id":"x"}`))
	if !s.IsError || !transient(s, nil) {
		t.Errorf("a 429 is transient: %+v", s)
	}
}

func TestParseCodex(t *testing.T) {
	out := []byte(`{"type":"thread.started","thread_id":"th-1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"done\nStatus: DONE"}}
{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":20,"output_tokens":9}}
`)
	s, err := parseCodex(out, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Usage.SessionID != "th-1" || s.Final != "done\nStatus: DONE" || s.Usage.InputTokens != 100 || s.Usage.OutputTokens != 9 || s.Usage.Turns != 1 {
		t.Errorf("parsed %+v", s)
	}
	s, _ = parseCodex([]byte(`{"type":"turn.failed","error":{"message":"stream disconnected: 500 Internal Server Error"}}`), "")
	if !s.IsError || !transient(s, nil) {
		t.Errorf("turn.failed: %+v", s)
	}
}

func TestUsageString(t *testing.T) {
	u := Usage{Agent: "claude", Version: "2.1.328"}
	u.Add(Usage{Sessions: 1, Turns: 3, InputTokens: 100, OutputTokens: 20, CostUSD: 0.25})
	u.Add(Usage{Sessions: 2, Turns: 1, CostUSD: 0.17, SessionID: "s2"})
	if got, want := u.String(), "claude 2.1.328, 3 sessions, 4 turns, 100 tokens in, 20 out, $0.42"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestFileRules: a protocol file inside the workspace is named by its
// path there (an explorer's findings document); one outside is given in
// the answer (the report, a reviewer's findings).
func TestFileRules(t *testing.T) {
	got := fileRules("/ws", []string{"SPECSTACK_REPORT=/art/r.md", "SPECSTACK_FINDINGS=/ws/docs/f.md", "SPECSTACK_VERDICTS=/wsx/v.json", "SPECSTACK_TASK=1"})
	for _, want := range []string{"$SPECSTACK_FINDINGS is docs/f.md in your workspace", "write $SPECSTACK_REPORT or $SPECSTACK_VERDICTS, do not"} {
		if !strings.Contains(got, want) {
			t.Errorf("fileRules: %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "TASK") {
		t.Errorf("fileRules names a variable that is no file: %q", got)
	}
}

// TestPinnedVersions: the versions a runner installs are the ones the
// agent tests install (testdata/tools/install-agents), so what runs on
// GitHub Actions is what was tested.
func TestPinnedVersions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tools", "install-agents"))
	if err != nil {
		t.Fatal(err)
	}
	for name, line := range map[string]string{"claude": `CLAUDE_VERSION="${CLAUDE_CODE_VERSION:-`, "codex": `CODEX_VER="${CODEX_VERSION:-`} {
		p := builtIn[name]
		if !strings.Contains(string(data), line+p.Version+`}"`) || !strings.Contains(string(data), p.Package+"@$") {
			t.Errorf("preset %s pins %s@%s; install-agents pins another (want %s%s}\")", name, p.Package, p.Version, line, p.Version)
		}
	}
}
