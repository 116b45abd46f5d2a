package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// event is one server-sent event.
type event struct {
	Name string
	Data map[string]any
}

// serve starts a server over the scenario text and returns its URL and the
// log path.
func serve(t *testing.T, scenario string) (string, string) {
	t.Helper()
	sc, err := ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log")
	hs := httptest.NewServer(NewServer(sc, logPath, filepath.Join(dir, "state.json")))
	t.Cleanup(hs.Close)
	return hs.URL, logPath
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func events(t *testing.T, resp *http.Response) []event {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var out []event
	sc := bufio.NewScanner(resp.Body)
	var name string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var d map[string]any
			if err := json.Unmarshal([]byte(v), &d); err != nil {
				t.Fatalf("event %s: %v", name, err)
			}
			if d["type"] != name {
				t.Errorf("event %s carries type %v", name, d["type"])
			}
			out = append(out, event{name, d})
		}
	}
	return out
}

func names(evs []event) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.Name)
	}
	return strings.Join(n, " ")
}

// claudeRequest is a Messages request as Claude Code sends it: the prompt
// after a reminder, the environment in a system message, then the history.
func claudeRequest(prompt string, history ...map[string]any) map[string]any {
	msgs := []map[string]any{
		{"role": "user", "content": []map[string]any{
			{"type": "text", "text": "<system-reminder>\nmatch-me-not\n</system-reminder>\n"},
			{"type": "text", "text": prompt}}},
		{"role": "system", "content": []map[string]any{{"type": "text", "text": "# Environment\n - Primary working directory: /work/dir\n - Platform: linux"}}},
	}
	msgs = append(msgs, history...)
	return map[string]any{"model": "claude-opus-5-5", "stream": true, "max_tokens": 100, "messages": msgs,
		"tools": []map[string]any{{"name": "Write"}, {"name": "Bash"}}}
}

var assistantTurn = map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": "earlier"}}}
var toolResult = map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "x", "content": "ok"}}}

const twoRules = `{"rules":[
 {"match":"write","turns":[{"tool":"Write","input":{"file_path":"{cwd}/a.txt","content":"in {cwd}"}},{"text":"written","usage":{"input_tokens":7,"output_tokens":3}}]},
 {"match":"","turns":[{"text":"default"}]}]}`

func TestAnthropicToolThenText(t *testing.T) {
	url, logPath := serve(t, twoRules)
	evs := events(t, post(t, url+"/v1/messages?beta=true", claudeRequest("please write it")))
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := names(evs); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	start := evs[1].Data["content_block"].(map[string]any)
	if start["type"] != "tool_use" || start["name"] != "Write" || !strings.HasPrefix(start["id"].(string), "toolu_") {
		t.Errorf("content_block_start %v", start)
	}
	delta := evs[2].Data["delta"].(map[string]any)
	var input map[string]string
	if err := json.Unmarshal([]byte(delta["partial_json"].(string)), &input); err != nil {
		t.Fatal(err)
	}
	if input["file_path"] != "/work/dir/a.txt" || input["content"] != "in /work/dir" {
		t.Errorf("input %v: {cwd} not replaced by the primary working directory", input)
	}
	if sr := evs[4].Data["delta"].(map[string]any)["stop_reason"]; sr != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", sr)
	}

	// Second turn: the history holds one assistant message.
	evs = events(t, post(t, url+"/v1/messages?beta=true", claudeRequest("please write it", assistantTurn, toolResult)))
	if got := evs[2].Data["delta"].(map[string]any)["text"]; got != "written" {
		t.Errorf("second turn text %v, want written", got)
	}
	if u := evs[4].Data["usage"].(map[string]any)["output_tokens"]; u != float64(3) {
		t.Errorf("output_tokens %v, want 3", u)
	}
	if u := evs[0].Data["message"].(map[string]any)["usage"].(map[string]any)["input_tokens"]; u != float64(7) {
		t.Errorf("input_tokens %v, want 7", u)
	}
	// Past the last turn.
	evs = events(t, post(t, url+"/v1/messages", claudeRequest("please write it", assistantTurn, toolResult, assistantTurn, toolResult)))
	if got := evs[2].Data["delta"].(map[string]any)["text"]; got != NoMoreTurns {
		t.Errorf("third turn text %v, want %q", got, NoMoreTurns)
	}
	// The reminder is not part of the text rules match.
	evs = events(t, post(t, url+"/v1/messages", claudeRequest("something else")))
	if got := evs[2].Data["delta"].(map[string]any)["text"]; got != "default" {
		t.Errorf("default rule text %v", got)
	}

	entries := readLog(t, logPath)
	if len(entries) != 4 {
		t.Fatalf("%d log entries, want 4", len(entries))
	}
	for i, want := range []struct{ rule, turn int }{{0, 0}, {0, 1}, {0, 2}, {1, 0}} {
		if entries[i].Rule != want.rule || entries[i].Turn != want.turn || entries[i].API != "anthropic" {
			t.Errorf("entry %d: rule %d turn %d api %s, want rule %d turn %d", i, entries[i].Rule, entries[i].Turn, entries[i].API, want.rule, want.turn)
		}
	}
	if entries[0].Path != "/v1/messages?beta=true" || !bytes.Contains(entries[0].Body, []byte("please write it")) {
		t.Errorf("entry 0: path %q, body not logged in full", entries[0].Path)
	}
}

func TestAnthropicNonStreamingAndStructured(t *testing.T) {
	url, _ := serve(t, `{"rules":[{"match":"","turns":[{"structured":{"verdict":"pass","n":2}}]}]}`)
	req := claudeRequest("review")
	req["stream"] = false
	req["tools"] = []map[string]any{{"name": "StructuredOutput"}}
	resp := post(t, url+"/v1/messages", req)
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string         `json:"type"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.StopReason != "tool_use" || len(msg.Content) != 1 ||
		msg.Content[0].Name != "StructuredOutput" || msg.Content[0].Input["verdict"] != "pass" {
		t.Errorf("structured answer %+v", msg)
	}
}

func TestAnthropicStructuredWithoutSchemaIsText(t *testing.T) {
	url, _ := serve(t, `{"rules":[{"match":"","turns":[{"structured":{"verdict":"pass"}}]}]}`)
	evs := events(t, post(t, url+"/v1/messages", claudeRequest("review")))
	if got := evs[2].Data["delta"].(map[string]any)["text"]; got != `{"verdict":"pass"}` {
		t.Errorf("text %v, want the object's JSON when no StructuredOutput tool is offered", got)
	}
}

func TestAnthropicErrors(t *testing.T) {
	url, _ := serve(t, `{"rules":[{"match":"","turns":[{"status":529,"body":"busy"}]}]}`)
	resp := post(t, url+"/v1/messages", claudeRequest("x"))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 529 || !strings.Contains(string(body), `"overloaded_error"`) || !strings.Contains(string(body), "busy") {
		t.Errorf("status %d body %s", resp.StatusCode, body)
	}
	if resp.Header.Get("retry-after") != "0" || resp.Header.Get("x-should-retry") != "true" {
		t.Errorf("headers %v: want an immediate retry", resp.Header)
	}
	resp = post(t, url+"/v1/messages", map[string]any{"messages": "not a list"})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed request: status %d, want 400", resp.StatusCode)
	}
	resp = post(t, url+"/api/hello", nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: status %d, want 404", resp.StatusCode)
	}
}

func TestHangAnswersNothingUntilTheClientGoes(t *testing.T) {
	url, logPath := serve(t, `{"rules":[{"match":"","turns":[{"hang":true}]}]}`)
	data, _ := json.Marshal(claudeRequest("x"))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/messages", bytes.NewReader(data))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a hung turn answered %d", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the client's deadline", err)
	}
	if e := readLog(t, logPath); len(e) != 1 || e[0].Answer != "hang" {
		t.Errorf("log %+v, want one hang", e)
	}
}

// codexRequest is a Responses request as Codex 0.169 sends it.
func codexRequest(prompt string, codeMode bool, history ...map[string]any) map[string]any {
	input := []map[string]any{
		{"type": "message", "role": "developer", "content": []map[string]any{{"type": "input_text", "text": "You are Codex"}}},
		{"type": "message", "role": "user", "content": []map[string]any{{"type": "input_text", "text": "<environment_context>\n  <cwd>/repo/ws</cwd>\n</environment_context>"}}},
		{"type": "message", "role": "user", "content": []map[string]any{{"type": "input_text", "text": prompt}}},
	}
	req := map[string]any{"model": "gpt-6.1-sol", "stream": true}
	if codeMode {
		input = append([]map[string]any{{"type": "additional_tools", "role": "developer", "tools": []map[string]any{
			{"type": "namespace", "name": "functions", "tools": []map[string]any{{"type": "custom", "name": "exec"}, {"type": "function", "name": "wait"}}}}}}, input...)
	} else {
		req["tools"] = []map[string]any{{"type": "function", "name": "exec_command"}, {"type": "custom", "name": "apply_patch"}}
	}
	req["input"] = append(input, history...)
	return req
}

func TestResponsesTurns(t *testing.T) {
	url, logPath := serve(t, `{"rules":[{"match":"build","turns":[
		{"tool":"exec_command","input":{"cmd":"echo hi > {cwd}/a.txt"}},
		{"tool":"apply_patch","input":{"input":"*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch\n"}},
		{"tool":"shell","input":{"command":["bash","-lc","ls"]}},
		{"structured":{"ok":true}}]}]}`)
	call := map[string]any{"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"}
	out := map[string]any{"type": "function_call_output", "call_id": "c1", "output": "done"}
	custom := map[string]any{"type": "custom_tool_call", "name": "exec", "input": "x", "call_id": "c2"}
	msg := map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": "hi"}}}

	for _, tc := range []struct {
		name     string
		codeMode bool
		history  []map[string]any
		item     map[string]any // fields the done item must have
		contains string         // in its arguments or input
	}{
		{"function", false, nil, map[string]any{"type": "function_call", "name": "exec_command"}, `"cmd":"echo hi \u003e /repo/ws/a.txt"`},
		{"freeform", false, []map[string]any{call, out}, map[string]any{"type": "custom_tool_call", "name": "apply_patch"}, "*** Add File: b.txt"},
		{"code mode", true, nil, map[string]any{"type": "custom_tool_call", "name": "exec"}, `await tools.exec_command({"cmd":"echo hi \u003e /repo/ws/a.txt"})`},
		{"code mode patch", true, []map[string]any{custom, out}, map[string]any{"type": "custom_tool_call", "name": "exec"}, `await tools.apply_patch("*** Begin Patch\n`},
		{"shell alias", true, []map[string]any{custom, out, custom, out}, map[string]any{"type": "custom_tool_call", "name": "exec"}, `tools.exec_command({"cmd":"ls"})`},
		{"structured", false, []map[string]any{call, out, msg, custom}, map[string]any{"type": "message", "role": "assistant"}, `{"ok":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := events(t, post(t, url+"/v1/responses", codexRequest("build it", tc.codeMode, tc.history...)))
			got := names(evs)
			if !strings.HasPrefix(got, "response.created response.in_progress response.output_item.added") ||
				!strings.HasSuffix(got, "response.output_item.done response.completed") {
				t.Fatalf("events %q", got)
			}
			item := evs[len(evs)-2].Data["item"].(map[string]any)
			for k, v := range tc.item {
				if item[k] != v {
					t.Errorf("item %s = %v, want %v (item %v)", k, item[k], v, item)
				}
			}
			text := ""
			switch item["type"] {
			case "function_call":
				text = item["arguments"].(string)
			case "custom_tool_call":
				text = item["input"].(string)
			case "message":
				text = item["content"].([]any)[0].(map[string]any)["text"].(string)
			}
			if !strings.Contains(text, tc.contains) {
				t.Errorf("call %q does not contain %q", text, tc.contains)
			}
			if item["type"] != "message" && item["call_id"] == "" {
				t.Errorf("no call_id in %v", item)
			}
			usage := evs[len(evs)-1].Data["response"].(map[string]any)["usage"].(map[string]any)
			if usage["input_tokens"] != float64(DefaultUsage.InputTokens) || usage["total_tokens"] != float64(DefaultUsage.InputTokens+DefaultUsage.OutputTokens) {
				t.Errorf("usage %v", usage)
			}
		})
	}
	for i, e := range readLog(t, logPath) {
		if want := []int{0, 1, 0, 1, 2, 3}[i]; e.Turn != want || e.API != "responses" {
			t.Errorf("entry %d: turn %d api %s, want turn %d", i, e.Turn, e.API, want)
		}
	}
}

func TestFailCountsSpanServers(t *testing.T) {
	sc, err := ParseScenario([]byte(`{"rules":[{"match":"","turns":[{"text":"ok"}]}],
		"fail":[{"status":429,"times":2,"match":"review"},{"status":500,"times":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	var statuses []int
	for i, prompt := range []string{"review a", "review b", "review c", "other", "review d"} {
		// A new server each time, as a new `fakemodel run` would be.
		hs := httptest.NewServer(NewServer(sc, "", state))
		resp := post(t, hs.URL+"/v1/messages", claudeRequest(prompt))
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("retry-after") != "0" {
			t.Errorf("request %d: 429 without retry-after: 0", i)
		}
		resp.Body.Close()
		hs.Close()
	}
	if got, want := statuses, []int{429, 429, 500, 200, 200}; !equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseScenarioRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"rules":[{"match":"","turns":[{}]}]}`, "rules[0].turns[0]: say exactly one"},
		{`{"rules":[{"match":"","turns":[{"text":"a","tool":"Write"}]}]}`, "say exactly one"},
		{`{"rules":[{"match":"","turns":[{"status":200}]}]}`, "status 200"},
		{`{"rules":[{"match":"","turns":[{"text":"a","input":{}}]}]}`, "input without tool"},
		{`{"rules":[],"fail":[{"status":429}]}`, "fail[0]"},
		{`{"rules":[{"match":"","turns":[{"txt":"a"}]}]}`, `unknown field "txt"`},
	} {
		if _, err := ParseScenario([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.in, err, tc.want)
		}
	}
}

func readLog(t *testing.T, path string) []Entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Entry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}
