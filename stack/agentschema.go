package stack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/agent"
)

// The structured answers gh-specstack asks an agent preset for. Each is
// an object (structured output wants one); what is written to the file
// the worker protocol names is its list, as a command worker writes it.

// gateFindingsSchema is a gate or whole-stack reviewer's findings.
var gateFindingsSchema = &agent.Schema{
	JSON: []byte(`{"type":"object","additionalProperties":false,"required":["findings"],"properties":{` +
		`"findings":{"type":"array","items":{"type":"object","additionalProperties":false,` +
		`"required":["kind","file","line","message","reraises","falsifies"],"properties":{` +
		`"kind":{"type":"string","enum":["unmet-criterion","red-validation","correctness","minor"]},` +
		`"file":{"type":"string"},"line":{"type":"integer"},"message":{"type":"string"},` +
		`"reraises":{"type":"string"},"falsifies":{"type":"string"}}}}}}`),
	Validate: func(raw json.RawMessage) ([]byte, error) {
		var a struct {
			Findings *[]GateFinding `json:"findings"`
		}
		if err := decodeAnswer(raw, &a); err != nil {
			return nil, err
		}
		if a.Findings == nil {
			return nil, errors.New(`no "findings" list`)
		}
		for i, f := range *a.Findings {
			if strings.TrimSpace(f.Message) == "" {
				return nil, fmt.Errorf("finding %d: no message", i+1)
			}
		}
		return marshalList(*a.Findings)
	},
}

// verdictsSchema is a fixer's verdicts, one per finding.
var verdictsSchema = &agent.Schema{
	JSON: []byte(`{"type":"object","additionalProperties":false,"required":["verdicts"],"properties":{` +
		`"verdicts":{"type":"array","items":{"type":"object","additionalProperties":false,` +
		`"required":["id","verdict","reason"],"properties":{` +
		`"id":{"type":"string"},"verdict":{"type":"string","enum":["fixed","rejected"]},"reason":{"type":"string"}}}}}}`),
	Validate: func(raw json.RawMessage) ([]byte, error) {
		var a struct {
			Verdicts *[]Verdict `json:"verdicts"`
		}
		if err := decodeAnswer(raw, &a); err != nil {
			return nil, err
		}
		if a.Verdicts == nil {
			return nil, errors.New(`no "verdicts" list`)
		}
		for i, v := range *a.Verdicts {
			if v.ID == "" || v.Verdict != "fixed" && v.Verdict != "rejected" {
				return nil, fmt.Errorf("verdict %d: want an id and fixed or rejected", i+1)
			}
		}
		return marshalList(*a.Verdicts)
	},
}

// finishedSchema is the prior-work graph step's answer.
var finishedSchema = &agent.Schema{
	JSON: []byte(`{"type":"object","additionalProperties":false,"required":["finished"],"properties":{` +
		`"finished":{"type":"array","items":{"type":"object","additionalProperties":false,` +
		`"required":["ticket","evidence"],"properties":{"ticket":{"type":"integer"},"evidence":{"type":"string"}}}}}}`),
	Validate: func(raw json.RawMessage) ([]byte, error) {
		var a struct {
			Finished *[]Finished `json:"finished"`
		}
		if err := decodeAnswer(raw, &a); err != nil {
			return nil, err
		}
		if a.Finished == nil {
			return nil, errors.New(`no "finished" list`)
		}
		return marshalList(*a.Finished)
	},
}

func decodeAnswer(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the JSON object asked for: %w", err)
	}
	return nil
}

func marshalList[T any](xs []T) ([]byte, error) {
	if xs == nil {
		xs = []T{}
	}
	data, err := json.MarshalIndent(xs, "", "  ")
	return append(data, '\n'), err
}
