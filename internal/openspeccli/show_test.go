package openspeccli

import (
	"slices"
	"strings"
	"testing"
)

// TestShowArgs: which show invocations jj-openspec answers itself (the
// rest run the real CLI), and what it reads from them.
func TestShowArgs(t *testing.T) {
	for _, tc := range []struct {
		args   string
		native bool
		want   showSpec
	}{
		{"auth", true, showSpec{name: "auth"}},
		{"auth --type spec --no-interactive", true, showSpec{name: "auth", typ: "spec"}},
		{"--type=change add-x", true, showSpec{name: "add-x", typ: "change"}},
		{"auth --json --no-scenarios", true, showSpec{name: "auth", json: true, noScenarios: true}},
		{"auth --json --requirements", true, showSpec{name: "auth", json: true, noScenarios: true}},
		{"auth --json -r 2", true, showSpec{name: "auth", json: true, requirement: "2"}},
		{"auth --json --requirement=2", true, showSpec{name: "auth", json: true, requirement: "2"}},
		{"", false, showSpec{}},
		{"auth other", false, showSpec{}},
		{"auth --no-scenarios", false, showSpec{}}, // a JSON-only filter without --json
		{"add-x --json --deltas-only", true, showSpec{name: "add-x", json: true, deltasOnly: true}}, // a change's flag
		{"add-x --deltas-only", false, showSpec{}},                                                  // ignored by the text form
		{"add-x --json --diff", false, showSpec{}},
		{"auth --json --requirements -r 1", false, showSpec{}},
		{"auth --json -r", false, showSpec{}},
		{"auth --type spec --type change", false, showSpec{}},
		{"auth --json --json", false, showSpec{}},
	} {
		got, native := showArgs(strings.Fields(tc.args))
		if native != tc.native || got != tc.want {
			t.Errorf("showArgs(%q) = %+v, %v; want %+v, %v", tc.args, got, native, tc.want, tc.native)
		}
	}
}

// TestInstructionsArgs: the instructions invocations jj-openspec answers
// itself (ARTIFACT --change NAME --json, in any order; apply and archive
// as ARTIFACT too); the rest run the real CLI.
func TestInstructionsArgs(t *testing.T) {
	for _, tc := range []struct {
		args             string
		artifact, change string
		native           bool
	}{
		{"tasks --change add --json", "tasks", "add", true},
		{"--json --change=add proposal", "proposal", "add", true},
		{"tasks --change add", "", "", false},                   // the text form
		{"apply --change add --json", "apply", "add", true},     // apply's instructions
		{"--change=add archive --json", "archive", "add", true}, // archive's
		{"apply --change add", "", "", false},
		{"tasks --change add --json --schema x", "", "", false},
		{"tasks specs --change add --json", "", "", false},
		{"tasks --change add --change b --json", "", "", false},
		{"tasks --json --json --change add", "", "", false},
		{"--change add --json", "", "", false},
		{"tasks --json --change", "", "", false},
	} {
		a, c, ok := instructionsArgs(strings.Fields(tc.args))
		if ok != tc.native || ok && (a != tc.artifact || c != tc.change) {
			t.Errorf("instructionsArgs(%q) = %q, %q, %v; want %q, %q, %v", tc.args, a, c, ok, tc.artifact, tc.change, tc.native)
		}
	}
}

// TestNearestMatchesUTF16: OpenSpec ranks "Did you mean" names by edit
// distance over UTF-16 units (JavaScript strings): "ééé" (3 units) is
// nearer "x" than "abcd"; counted in bytes (6) it was not. Checked
// against the real CLI: "Did you mean: ééé, abcd?".
func TestNearestMatchesUTF16(t *testing.T) {
	if got := nearestMatches("x", []string{"abcd", "ééé"}, 5); !slices.Equal(got, []string{"ééé", "abcd"}) {
		t.Errorf("nearestMatches = %q; want [ééé abcd]", got)
	}
	if d := levenshtein("🎉", "x"); d != 2 {
		t.Errorf(`levenshtein("🎉", "x") = %d; want 2 (a surrogate pair)`, d)
	}
}
