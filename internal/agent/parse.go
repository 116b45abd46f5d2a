package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Usage is an agent's own accounting of one job (every session it took).
type Usage struct {
	Agent        string  `json:"agent" toml:"agent"`
	Version      string  `json:"version,omitempty" toml:"version,omitempty"`
	SessionID    string  `json:"session_id,omitempty" toml:"session_id,omitempty"`
	Sessions     int     `json:"sessions,omitempty" toml:"sessions,omitempty"`
	Turns        int     `json:"turns,omitempty" toml:"turns,omitempty"`
	InputTokens  int64   `json:"input_tokens,omitempty" toml:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty" toml:"output_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty" toml:"cost_usd,omitempty"`
}

// String says it the way a person reads it: "claude 2.1.328, 3 sessions,
// 12 turns, 40,210 tokens in, 3,100 out, $0.42".
func (u Usage) String() string {
	var b strings.Builder
	b.WriteString(u.Agent)
	if u.Version != "" {
		b.WriteString(" " + u.Version)
	}
	fmt.Fprintf(&b, ", %s", plural(u.Sessions, "session"))
	if u.Turns > 0 {
		fmt.Fprintf(&b, ", %s", plural(u.Turns, "turn"))
	}
	if u.InputTokens > 0 || u.OutputTokens > 0 {
		fmt.Fprintf(&b, ", %d tokens in, %d out", u.InputTokens, u.OutputTokens)
	}
	if u.CostUSD > 0 {
		fmt.Fprintf(&b, ", $%.2f", u.CostUSD)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Sum adds u to sum (nil: nothing yet) and returns the sum: what a task's
// or a run's agent jobs spent together.
func Sum(sum *Usage, u Usage) *Usage {
	if sum == nil {
		sum = &Usage{}
	}
	sum.Add(u)
	return sum
}

// Add sums o into u; the session is the latest one.
func (u *Usage) Add(o Usage) {
	if o.Agent != "" {
		u.Agent = o.Agent
	}
	if o.Version != "" {
		u.Version = o.Version
	}
	if o.SessionID != "" {
		u.SessionID = o.SessionID
	}
	u.Sessions += o.Sessions
	u.Turns += o.Turns
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CostUSD += o.CostUSD
}

// Denial is a permission the agent asked for and was refused.
type Denial struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
}

func (d Denial) String() string {
	in := strings.TrimSpace(string(d.Input))
	if len(in) > 200 {
		in = in[:200] + "…"
	}
	if in == "" {
		return d.Tool
	}
	return d.Tool + " " + in
}

// session is what one agent process said about its session.
type session struct {
	Final   string
	Answer  json.RawMessage // structured output, when asked for
	Usage   Usage
	Denials []Denial
	IsError bool
	Error   string // the agent's own error text
}

// claudeResult is Claude Code's print-mode JSON result.
type claudeResult struct {
	Type      string  `json:"type"`
	Subtype   string  `json:"subtype"`
	IsError   bool    `json:"is_error"`
	Result    string  `json:"result"`
	SessionID string  `json:"session_id"`
	NumTurns  int     `json:"num_turns"`
	CostUSD   float64 `json:"total_cost_usd"`
	Usage     struct {
		InputTokens         int64 `json:"input_tokens"`
		CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens        int64 `json:"output_tokens"`
	} `json:"usage"`
	Denials []struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	} `json:"permission_denials"`
	Structured json.RawMessage `json:"structured_output"`
	Errors     []string        `json:"errors"`
}

// parseClaude reads the JSON object Claude Code prints in print mode: the
// last line of stdout that is one.
func parseClaude(stdout []byte) (session, error) {
	var r claudeResult
	found := false
	for _, line := range lines(stdout) {
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var c claudeResult
		if json.Unmarshal(line, &c) == nil && c.Type == "result" {
			r, found = c, true
		}
	}
	if !found {
		return session{}, fmt.Errorf("no result object on its output (claude -p --output-format json prints one)")
	}
	s := session{Final: r.Result, Answer: r.Structured, IsError: r.IsError}
	if r.IsError {
		s.Error = r.Result
		if s.Error == "" {
			s.Error = strings.Join(r.Errors, "; ")
		}
		if s.Error == "" {
			s.Error = r.Subtype
		}
	}
	s.Usage = Usage{SessionID: r.SessionID, Sessions: 1, Turns: r.NumTurns, CostUSD: r.CostUSD,
		InputTokens:  r.Usage.InputTokens + r.Usage.CacheCreationTokens + r.Usage.CacheReadTokens,
		OutputTokens: r.Usage.OutputTokens}
	for _, d := range r.Denials {
		s.Denials = append(s.Denials, Denial{Tool: d.ToolName, Input: d.ToolInput})
	}
	return s, nil
}

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Usage struct {
		InputTokens  int64 `json:"input_tokens"`
		CachedTokens int64 `json:"cached_input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// parseCodex reads codex exec's JSON events; the final message is the
// file -o wrote (lastMessage), or else the last agent message.
func parseCodex(stdout []byte, lastMessage string) (session, error) {
	var s session
	seen := false
	for _, line := range lines(stdout) {
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var e codexEvent
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		seen = true
		switch e.Type {
		case "thread.started":
			s.Usage.SessionID = e.ThreadID
		case "turn.completed":
			s.Usage.Turns++
			s.Usage.InputTokens += e.Usage.InputTokens
			s.Usage.OutputTokens += e.Usage.OutputTokens
		case "item.completed":
			if e.Item.Type == "agent_message" {
				s.Final = e.Item.Text
			}
		case "turn.failed":
			s.IsError, s.Error = true, e.Error.Message
		case "error":
			s.IsError, s.Error = true, e.Message
		}
	}
	if !seen {
		return session{}, fmt.Errorf("no JSON events on its output (codex exec --json prints them)")
	}
	if lastMessage != "" {
		s.Final = lastMessage
	}
	s.Usage.Sessions = 1
	if s.Final != "" && !s.IsError {
		s.Answer = json.RawMessage(strings.TrimSpace(s.Final))
	}
	return s, nil
}

// parseText is any other agent: what it printed is its final message, and
// a structured answer is the JSON object in it.
func parseText(stdout []byte) session {
	s := session{Final: string(stdout), Usage: Usage{Sessions: 1}}
	if i, j := bytes.IndexByte(stdout, '{'), bytes.LastIndexByte(stdout, '}'); i >= 0 && j > i {
		s.Answer = json.RawMessage(stdout[i : j+1])
	}
	return s
}

func lines(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), len(b)+1)
	for sc.Scan() {
		out = append(out, bytes.TrimSpace(sc.Bytes()))
	}
	return out
}
