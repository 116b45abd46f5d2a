package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Schema is a structured answer an agent is asked for: the JSON schema
// it is given, and the check of what it answered, which returns what is
// written to the answer file.
type Schema struct {
	JSON     []byte
	Validate func(json.RawMessage) ([]byte, error)
}

// Findings is a reviewer's answer: {"confidence", "findings": [...]} in
// specstack's findings format. Every field is required (the strict
// structured output of both agents asks for that): "" and 0 mean none.
var Findings = &Schema{
	JSON: []byte(`{"type":"object","additionalProperties":false,"required":["confidence","findings"],` +
		`"properties":{"confidence":{"type":"integer","minimum":0,"maximum":100},` +
		`"findings":{"type":"array","items":{"type":"object","additionalProperties":false,` +
		`"required":["task","severity","file","line","message"],"properties":{` +
		`"task":{"type":"integer"},` +
		`"severity":{"type":"string","enum":["critical","important","suggestion","cannot-verify"]},` +
		`"file":{"type":"string"},"line":{"type":"integer"},"message":{"type":"string"}}}}}}`),
	Validate: validateFindings,
}

type finding struct {
	Task     *int    `json:"task"`
	Severity string  `json:"severity"`
	File     *string `json:"file"`
	Line     *int    `json:"line"`
	Message  string  `json:"message"`
}

type findingsAnswer struct {
	Confidence *int       `json:"confidence"`
	Findings   *[]finding `json:"findings"`
}

func validateFindings(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("no structured answer")
	}
	// A fenced answer is the model's habit, not a different answer.
	if s := string(raw); strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
		raw = json.RawMessage(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```")))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var a findingsAnswer
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("not a JSON object {confidence, findings}: %w", err)
	}
	if a.Findings == nil {
		return nil, errors.New(`no "findings" list`)
	}
	if a.Confidence == nil || *a.Confidence < 0 || *a.Confidence > 100 {
		return nil, errors.New(`"confidence" is not a number from 0 to 100`)
	}
	for i, f := range *a.Findings {
		switch f.Severity {
		case "critical", "important", "suggestion", "cannot-verify":
		default:
			return nil, fmt.Errorf("finding %d: severity %q is not critical, important, suggestion or cannot-verify", i+1, f.Severity)
		}
		if strings.TrimSpace(f.Message) == "" {
			return nil, fmt.Errorf("finding %d: no message", i+1)
		}
	}
	out := struct {
		Confidence int       `json:"confidence"`
		Findings   []finding `json:"findings"`
	}{*a.Confidence, *a.Findings}
	if out.Findings == nil {
		out.Findings = []finding{}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	return append(data, '\n'), err
}
