package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// anthropicRequest is the part of a Messages API request the fake reads.
type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// claudeCwd finds the working directory Claude Code tells the model.
var claudeCwd = regexp.MustCompile(`Primary working directory: ([^\n]+)`)

func parseAnthropic(body []byte) (call, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return call{}, fmt.Errorf("decode messages request: %w", err)
	}
	c := call{stream: req.Stream, model: req.Model}
	var first, env []string
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			c.turns++
			continue
		}
		if c.turns > 0 {
			continue
		}
		texts := blockTexts(m.Content)
		env = append(env, texts...)
		if m.Role == "user" {
			first = append(first, userTexts(texts)...)
		}
	}
	c.firstText = strings.Join(first, "\n")
	for _, t := range req.Tools {
		if t.Name == claudeStructuredTool {
			c.structured = true
		}
	}
	// The environment (and so the working directory) comes in a "system"
	// message after the first user message, in 2.1.328; look everywhere
	// before the first answer.
	for _, s := range append(blockTexts(req.System), env...) {
		if m := claudeCwd.FindStringSubmatch(s); m != nil {
			c.cwd = strings.TrimSpace(m[1])
			break
		}
	}
	return c, nil
}

// blockTexts returns the texts of a content (a string or a list of
// blocks), leaving out tool results.
func blockTexts(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// userTexts leaves out the texts the agent adds to the user's own:
// reminders and context blocks in angle-bracket tags.
func userTexts(texts []string) []string {
	var out []string
	for _, t := range texts {
		if s := strings.TrimSpace(t); strings.HasPrefix(s, "<system-reminder>") ||
			strings.HasPrefix(s, "<environment_context>") || strings.HasPrefix(s, "<user_instructions>") ||
			strings.HasPrefix(s, "# AGENTS.md instructions") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// claudeStructuredTool is the tool Claude Code offers the model for
// --json-schema; the structured answer is a call of it.
const claudeStructuredTool = "StructuredOutput"

type anthropicWriter struct{}

func (anthropicWriter) fail(w http.ResponseWriter, status int, body string) {
	kind := map[int]string{
		400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error",
	}[status]
	if kind == "" {
		kind = "api_error"
	}
	if body == "" {
		body = fmt.Sprintf("fakemodel: %d %s", status, http.StatusText(status))
	}
	if status == http.StatusTooManyRequests || status == 529 || status >= 500 {
		// Retry at once: the SDK honours retry-after-ms, and
		// x-should-retry overrides its own guess.
		w.Header().Set("retry-after-ms", "0")
		w.Header().Set("retry-after", "0")
		w.Header().Set("x-should-retry", "true")
	}
	msg, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%s}}`, kind, msg)
}

// block is one content block of an answer.
type block struct {
	Type  string `json:"type"`
	Text  string `json:"text,omitempty"`
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Input any    `json:"input,omitempty"`
}

func (anthropicWriter) turn(w http.ResponseWriter, c call, t Turn) error {
	var b block
	stop := "end_turn"
	switch {
	case t.Tool != "":
		input := withCwd(t.Input, c.cwd)
		if input == nil {
			input = map[string]any{}
		}
		b = block{Type: "tool_use", ID: newID("toolu_"), Name: t.Tool, Input: input}
		stop = "tool_use"
	case len(t.Structured) > 0 && c.structured:
		var v any
		if err := json.Unmarshal(t.Structured, &v); err != nil {
			return err
		}
		b = block{Type: "tool_use", ID: newID("toolu_"), Name: claudeStructuredTool, Input: v}
		stop = "tool_use"
	case len(t.Structured) > 0:
		// No --json-schema: the object as the answer's text.
		b = block{Type: "text", Text: string(t.Structured)}
	default:
		b = block{Type: "text", Text: t.Text}
	}
	u := t.usage()
	msgID := newID("msg_")
	model := c.model
	if model == "" {
		model = "fakemodel"
	}
	usage := map[string]int{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !c.stream {
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []block{b}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
	}
	sse := newSSE(w)
	start := map[string]any{"input_tokens": u.InputTokens, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	switch b.Type {
	case "text":
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, part := range chunks(b.Text, 64) {
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": part}})
		}
	case "tool_use":
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
		args, err := json.Marshal(b.Input)
		if err != nil {
			return err
		}
		for _, part := range chunks(string(args), 64) {
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	}
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
	return sse.err
}
