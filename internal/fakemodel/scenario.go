package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Scenario is what the fake answers: rules picked by the first user text
// of a request, and failures given before any rule is consulted.
type Scenario struct {
	Rules []Rule `json:"rules"`
	Fail  []Fail `json:"fail,omitempty"`
}

// Rule answers the requests whose first user text contains Match (an
// empty Match matches every request) with Turns, one per assistant turn
// already in the request's history.
type Rule struct {
	Match string `json:"match"`
	Turns []Turn `json:"turns"`
}

// Turn is one answer of the model. Exactly one of Text, Tool, Structured,
// Status and Hang is set.
type Turn struct {
	Text string `json:"text,omitempty"`
	// Tool names a tool the agent offers (Claude: Write, Edit, Bash,
	// Read, ...; Codex: exec_command, apply_patch, ...) and Input its
	// arguments; "{cwd}" in any string of Input is replaced by the
	// agent's working directory.
	Tool  string         `json:"tool,omitempty"`
	Input map[string]any `json:"input,omitempty"`
	// Structured is the JSON object answered to a structured-output
	// request (claude --json-schema, codex exec --output-schema).
	Structured json.RawMessage `json:"structured,omitempty"`
	// Status answers with this HTTP status and Body instead.
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	// Hang never answers, until the client goes away.
	Hang  bool   `json:"hang,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is the token count a turn reports.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// DefaultUsage is reported by turns that name none.
var DefaultUsage = Usage{InputTokens: 100, OutputTokens: 20}

// Fail answers the first Times model requests (those whose first user
// text contains Match, when Match is set) with Status, before any rule.
// The count is kept in the state file, so it spans processes.
type Fail struct {
	Status int    `json:"status"`
	Times  int    `json:"times"`
	Match  string `json:"match,omitempty"`
	Body   string `json:"body,omitempty"`
}

// NoMoreTurns is the text answered past a rule's last turn.
const NoMoreTurns = "(fakemodel: no more turns)"

// LoadScenario reads and checks a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return sc, nil
}

// ParseScenario decodes a scenario, refusing unknown fields and turns
// that say nothing or more than one thing.
func ParseScenario(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	for i, r := range sc.Rules {
		for j, t := range r.Turns {
			if err := t.check(); err != nil {
				return nil, fmt.Errorf("rules[%d].turns[%d]: %w", i, j, err)
			}
		}
	}
	for i, f := range sc.Fail {
		if f.Status < 400 || f.Status > 599 || f.Times < 1 {
			return nil, fmt.Errorf("fail[%d]: status must be 400 to 599 and times at least 1", i)
		}
	}
	return &sc, nil
}

func (t Turn) check() error {
	n := 0
	for _, set := range []bool{t.Text != "", t.Tool != "", len(t.Structured) > 0, t.Status != 0, t.Hang} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("say exactly one of text, tool, structured, status, hang")
	}
	if t.Input != nil && t.Tool == "" {
		return fmt.Errorf("input without tool")
	}
	if t.Status != 0 && (t.Status < 400 || t.Status > 599) {
		return fmt.Errorf("status %d: must be 400 to 599", t.Status)
	}
	if len(t.Structured) > 0 && !json.Valid(t.Structured) {
		return fmt.Errorf("structured is not JSON")
	}
	return nil
}

// Pick returns the index of the first rule whose Match occurs in text,
// or -1.
func (sc *Scenario) Pick(text string) int {
	for i, r := range sc.Rules {
		if strings.Contains(text, r.Match) {
			return i
		}
	}
	return -1
}

// TurnAt returns turn n of rule i; past the last turn (or with no rule)
// it is the text NoMoreTurns.
func (sc *Scenario) TurnAt(i, n int) Turn {
	if i < 0 || n >= len(sc.Rules[i].Turns) {
		return Turn{Text: NoMoreTurns}
	}
	return sc.Rules[i].Turns[n]
}

// usage returns the turn's usage or DefaultUsage.
func (t Turn) usage() Usage {
	if t.Usage != nil {
		return *t.Usage
	}
	return DefaultUsage
}

// withCwd returns v with "{cwd}" replaced by cwd in every string.
func withCwd(v any, cwd string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "{cwd}", cwd)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withCwd(e, cwd)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = withCwd(e, cwd)
		}
		return out
	}
	return v
}
