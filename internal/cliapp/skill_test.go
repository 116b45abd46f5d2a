package cliapp_test

import (
	"encoding/json"
	"testing"

	"github.com/specstack/specstack/internal/cliapp"
)

// skill --json prints the front matter's name and description and the
// guide as skill prints it, before or after the verb.
func TestSkillJSON(t *testing.T) {
	guide := "---\nname: tool\ndescription: Do things: well, and fast.\n---\n\n# Tool\n\nRun `tool x`.\n"
	s := cliapp.Spec{Name: "tool", Skill: guide}
	code, text, _ := run(t, s, "skill")
	if code != 0 || text != guide {
		t.Fatalf("skill: exit %d, %q", code, text)
	}
	for _, args := range [][]string{{"skill", "--json"}, {"--json", "skill"}} {
		code, out, stderr := run(t, s, args...)
		var doc map[string]string
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v: %s%s", args, code, err, out, stderr)
		}
		want := map[string]string{"name": "tool", "description": "Do things: well, and fast.", "guide": text}
		if len(doc) != len(want) {
			t.Errorf("%q: keys %v; want name, description, guide", args, doc)
		}
		for k, v := range want {
			if doc[k] != v {
				t.Errorf("%q: %s = %q; want %q", args, k, doc[k], v)
			}
		}
	}
}
