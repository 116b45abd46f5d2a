package stack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/agent"
	"github.com/specstack/specstack/internal/engine"
)

// The structured answers gh-specstack asks an agent preset for. Each is
// an object holding one list (structured output wants an object); what is
// written to the file the worker protocol names is the list, as a command
// worker writes it.

// gateFindingsSchema is a gate or whole-stack reviewer's findings.
var gateFindingsSchema = listSchema("findings",
	`{"type":"object","additionalProperties":false,"required":["kind","file","line","message","reraises","falsifies"],"properties":{`+
		`"kind":{"type":"string","enum":["unmet-criterion","red-validation","correctness","minor"]},`+
		`"file":{"type":"string"},"line":{"type":"integer"},"message":{"type":"string"},`+
		`"reraises":{"type":"string"},"falsifies":{"type":"string"}}}`,
	func(f engine.Finding) error {
		if strings.TrimSpace(f.Message) == "" {
			return errors.New("no message")
		}
		return nil
	})

// verdictsSchema is a fixer's verdicts, one per finding.
var verdictsSchema = listSchema("verdicts",
	`{"type":"object","additionalProperties":false,"required":["id","verdict","reason"],"properties":{`+
		`"id":{"type":"string"},"verdict":{"type":"string","enum":["fixed","rejected"]},"reason":{"type":"string"}}}`,
	func(v engine.FixVerdict) error {
		if v.ID == "" || v.Verdict != "fixed" && v.Verdict != "rejected" {
			return errors.New("want an id and fixed or rejected")
		}
		return nil
	})

// finishedSchema is the prior-work graph step's answer.
var finishedSchema = listSchema("finished",
	`{"type":"object","additionalProperties":false,"required":["ticket","evidence"],"properties":{"ticket":{"type":"integer"},"evidence":{"type":"string"}}}`,
	func(Finished) error { return nil })

// listSchema is an answer {"KEY": [ITEM, ...]} whose items follow item (a
// JSON schema) and pass check; the list is what is written.
func listSchema[T any](key, item string, check func(T) error) *agent.Schema {
	return &agent.Schema{
		JSON: []byte(`{"type":"object","additionalProperties":false,"required":["` + key + `"],"properties":{"` + key + `":{"type":"array","items":` + item + `}}}`),
		Validate: func(raw json.RawMessage) ([]byte, error) {
			var a map[string]json.RawMessage
			if err := json.Unmarshal(bytes.TrimSpace(raw), &a); err != nil {
				return nil, fmt.Errorf("not the JSON object asked for: %w", err)
			}
			list, ok := a[key]
			if !ok || len(a) != 1 {
				return nil, fmt.Errorf("want an object with one field, %q", key)
			}
			dec := json.NewDecoder(bytes.NewReader(list))
			dec.DisallowUnknownFields()
			var xs []T
			if err := dec.Decode(&xs); err != nil || xs == nil && string(bytes.TrimSpace(list)) != "[]" {
				return nil, fmt.Errorf("%q is not a list of what was asked for: %v", key, err)
			}
			for i, x := range xs {
				if err := check(x); err != nil {
					return nil, fmt.Errorf("%s %d: %w", key, i+1, err)
				}
			}
			if xs == nil {
				xs = []T{}
			}
			data, err := json.MarshalIndent(xs, "", "  ")
			return append(data, '\n'), err
		},
	}
}
