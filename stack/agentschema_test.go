package stack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/agent"
)

func TestAgentSchemas(t *testing.T) {
	for name, sc := range map[string]*agent.Schema{"findings": gateFindingsSchema, "verdicts": verdictsSchema, "finished": finishedSchema} {
		var m map[string]any
		if err := json.Unmarshal(sc.JSON, &m); err != nil {
			t.Errorf("%s schema is not JSON: %v", name, err)
		}
	}
	if out, err := gateFindingsSchema.Validate(json.RawMessage(`{"findings": []}`)); err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Errorf("empty findings: %s %v", out, err)
	}
	if out, err := verdictsSchema.Validate(json.RawMessage(`{"verdicts": [{"id": "r1-1", "verdict": "fixed", "reason": "done"}]}`)); err != nil || !strings.Contains(string(out), `"r1-1"`) {
		t.Errorf("verdicts: %s %v", out, err)
	}
	for _, bad := range []string{``, `[]`, `{}`, `{"findings": null}`, `{"findings": [], "extra": 1}`, `{"findings": [{"kind": "minor", "message": ""}]}`, `{"findings": [{"kind": "minor", "message": "x", "oops": 1}]}`} {
		if _, err := gateFindingsSchema.Validate(json.RawMessage(bad)); err == nil {
			t.Errorf("findings %q passed", bad)
		}
	}
	if _, err := verdictsSchema.Validate(json.RawMessage(`{"verdicts": [{"id": "x", "verdict": "maybe"}]}`)); err == nil {
		t.Error("a verdict that is neither fixed nor rejected passed")
	}
}
