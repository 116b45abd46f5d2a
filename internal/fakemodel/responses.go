package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// responsesRequest is the part of a Responses API request the fake reads.
type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Input  []json.RawMessage `json:"input"`
	Tools  []codexTool       `json:"tools"`
	Text   *struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"text"`
}

// codexTool is a tool Codex offers: a function, a freeform (custom) tool,
// or a namespace of tools.
type codexTool struct {
	Type  string      `json:"type"`
	Name  string      `json:"name"`
	Tools []codexTool `json:"tools"`
}

// responsesItem is the part of an input item the fake reads.
type responsesItem struct {
	Type    string      `json:"type"`
	Role    string      `json:"role"`
	Tools   []codexTool `json:"tools"` // of an additional_tools item
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// codexCwd finds the working directory in Codex's environment context.
var codexCwd = regexp.MustCompile(`<cwd>([^<]+)</cwd>`)

// modelItems are the input item types the model produced: one per turn
// the fake answered.
var modelItems = map[string]bool{
	"function_call": true, "custom_tool_call": true, "local_shell_call": true,
}

func parseResponses(body []byte) (call, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return call{}, fmt.Errorf("decode responses request: %w", err)
	}
	c := call{stream: req.Stream, model: req.Model}
	c.structured = req.Text != nil && req.Text.Format != nil && req.Text.Format.Type == "json_schema"
	var first []string
	c.tools = map[string]string{}
	addTools(c.tools, req.Tools)
	for _, raw := range req.Input {
		var it responsesItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		if it.Type == "additional_tools" {
			addTools(c.tools, it.Tools)
			continue
		}
		if modelItems[it.Type] || (it.Type == "message" && it.Role == "assistant") {
			c.turns++
			continue
		}
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		for _, p := range it.Content {
			if c.cwd == "" {
				if m := codexCwd.FindStringSubmatch(p.Text); m != nil {
					c.cwd = strings.TrimSpace(m[1])
				}
			}
			if c.turns == 0 {
				first = append(first, p.Text)
			}
		}
	}
	c.firstText = strings.Join(first, "\n")
	return c, nil
}

// addTools records the name and type of every tool in ts, namespaces
// flattened.
func addTools(into map[string]string, ts []codexTool) {
	for _, t := range ts {
		if t.Type == "namespace" {
			addTools(into, t.Tools)
			continue
		}
		if t.Name != "" {
			into[t.Name] = t.Type
		}
	}
}

type responsesWriter struct{}

func (responsesWriter) fail(w http.ResponseWriter, status int, body string) {
	if body == "" {
		body = fmt.Sprintf("fakemodel: %d %s", status, http.StatusText(status))
	}
	if status == http.StatusTooManyRequests || status >= 500 {
		w.Header().Set("retry-after", "0")
	}
	kind := "server_error"
	if status == http.StatusTooManyRequests {
		kind = "rate_limit_exceeded"
	} else if status < 500 {
		kind = "invalid_request_error"
	}
	msg, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"type":%q,"code":%q,"message":%s}}`, kind, kind, msg)
}

func (responsesWriter) turn(w http.ResponseWriter, c call, t Turn) error {
	respID := newID("resp_")
	var item map[string]any
	text := ""
	switch {
	case t.Tool != "":
		input, _ := withCwd(t.Input, c.cwd).(map[string]any)
		if input == nil {
			input = map[string]any{}
		}
		item = codexToolCall(t.Tool, input, c.tools)
	default:
		text = t.Text
		if len(t.Structured) > 0 {
			text = string(t.Structured)
		}
		item = map[string]any{"type": "message", "role": "assistant", "id": newID("msg_"), "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	u := t.usage()
	usage := map[string]any{
		"input_tokens": u.InputTokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": u.InputTokens + u.OutputTokens,
	}
	model := c.model
	if model == "" {
		model = "fakemodel"
	}
	resp := map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": model, "output": []any{}}
	if !c.stream {
		resp["status"], resp["output"], resp["usage"] = "completed", []any{item}, usage
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(resp)
	}
	sse := newSSE(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": resp})
	sse.event("response.in_progress", map[string]any{"type": "response.in_progress", "response": resp})
	if item["type"] == "message" {
		added := map[string]any{"type": "message", "role": "assistant", "id": item["id"], "status": "in_progress", "content": []any{}}
		sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": added})
		for _, part := range chunks(text, 64) {
			sse.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
				"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": part})
		}
		sse.event("response.output_text.done", map[string]any{"type": "response.output_text.done",
			"item_id": item["id"], "output_index": 0, "content_index": 0, "text": text})
	} else {
		sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	}
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": respID, "object": "response", "status": "completed", "model": model,
		"output": []any{item}, "usage": usage}
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": done})
	return sse.err
}

// codexToolCall is the output item calling tool with input, in the form
// the request offers it: a function call with JSON arguments, a freeform
// (custom) tool call whose input is input's one string "input", or, when
// Codex offers only its JavaScript "code mode" tool exec (the default
// model of 0.169), an exec call running `tools.NAME(ARGS)`. The old
// "shell" tool ({"command": ["bash", "-lc", "..."]}) becomes exec_command.
func codexToolCall(tool string, input map[string]any, offered map[string]string) map[string]any {
	if _, ok := offered[tool]; !ok && tool == "shell" {
		tool, input = "exec_command", map[string]any{"cmd": shellCommand(input["command"])}
	}
	callID := newID("call_")
	text, isText := freeformInput(input)
	kind, ok := offered[tool]
	switch {
	case ok && kind == "custom" && isText:
		return customCall(callID, tool, text)
	case !ok && offered["exec"] == "custom":
		var arg []byte
		if isText {
			arg, _ = json.Marshal(text)
		} else {
			arg, _ = json.Marshal(input)
		}
		js := fmt.Sprintf("const r = await tools.%s(%s);\ntext(typeof r === \"string\" ? r : JSON.stringify(r));\n", tool, arg)
		return customCall(callID, "exec", js)
	}
	args, _ := json.Marshal(input)
	return map[string]any{"type": "function_call", "id": newID("fc_"), "status": "completed",
		"call_id": callID, "name": tool, "arguments": string(args)}
}

func customCall(callID, name, input string) map[string]any {
	return map[string]any{"type": "custom_tool_call", "id": newID("ctc_"), "status": "completed",
		"call_id": callID, "name": name, "input": input}
}

// freeformInput returns the text of an input that is {"input": TEXT}.
func freeformInput(input map[string]any) (string, bool) {
	if len(input) != 1 {
		return "", false
	}
	s, ok := input["input"].(string)
	return s, ok
}

// shellCommand turns the argv of the old shell tool into a command line:
// the script of ["bash", "-lc", SCRIPT], or the words joined.
func shellCommand(v any) string {
	list, _ := v.([]any)
	var words []string
	for _, w := range list {
		s, _ := w.(string)
		words = append(words, s)
	}
	if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
		return words[2]
	}
	return strings.Join(words, " ")
}
