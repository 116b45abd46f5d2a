package spec

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

const baseSpec = `# auth Specification

## Purpose
Authenticate users with passwords and sessions so that only known people can use it.

## Requirements

### Requirement: Login
The system SHALL log users in.

#### Scenario: Ok
- **WHEN** right password
- **THEN** logged in

#### Scenario: Wrong
- **WHEN** wrong password
- **THEN** refused

### Requirement: Expiry
The system SHALL expire sessions.

#### Scenario: Idle
- **WHEN** idle
- **THEN** expired
`

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		delta   string
		target  string // "" means no main spec
		counts  Counts
		has     []string // substrings of the result
		hasNot  []string
		wantErr string
	}{
		{
			name:   "added appended",
			delta:  "## ADDED Requirements\n\n### Requirement: Lockout\nThe system SHALL lock.\n\n#### Scenario: L\n- **WHEN** x\n- **THEN** y\n",
			target: baseSpec, counts: Counts{Added: 1},
			has: []string{"- **THEN** expired\n\n### Requirement: Lockout\n"},
		},
		{
			name:   "renamed keeps position, then modified by the new name",
			delta:  "## RENAMED Requirements\n- FROM: `### Requirement: Login`\n- TO: `### Requirement: Sign in`\n\n## MODIFIED Requirements\n\n### Requirement: Sign in\nThe system SHALL sign users in.\n\n#### Scenario: Ok\n- **WHEN** a\n- **THEN** b\n\n#### Scenario: Wrong\n- **WHEN** c\n- **THEN** d\n",
			target: baseSpec, counts: Counts{Renamed: 1, Modified: 1},
			has:    []string{"## Requirements\n\n### Requirement: Sign in\nThe system SHALL sign users in."},
			hasNot: []string{"Requirement: Login"},
		},
		{
			name:   "removed by bullet",
			delta:  "## REMOVED Requirements\n* `### Requirement: Expiry`\n",
			target: baseSpec, counts: Counts{Removed: 1},
			hasNot: []string{"Expiry"},
		},
		{
			name:   "already applied is a no-op",
			delta:  "## REMOVED Requirements\n### Requirement: Gone\n\n## ADDED Requirements\n### Requirement: Expiry\nThe system SHALL expire sessions.\n\n#### Scenario: Idle\n- **WHEN** idle\n- **THEN** expired\n",
			target: baseSpec, counts: Counts{},
		},
		{
			name:    "modified dropping a scenario",
			delta:   "## MODIFIED Requirements\n### Requirement: Login\nThe system SHALL log in.\n\n#### Scenario: Ok\n- **WHEN** a\n- **THEN** b\n",
			target:  baseSpec,
			wantErr: `auth MODIFIED failed for header "### Requirement: Login" - current spec contains scenario(s) not present in the modified block: "Wrong". The modified block has 1 scenario; the current spec has 2 scenarios. It adds none.`,
		},
		{
			name:    "near-miss removal",
			delta:   "## REMOVED Requirements\n### Requirement: expiry\n",
			target:  baseSpec,
			wantErr: `auth REMOVED failed for header "### Requirement: expiry" - not found, but "### Requirement: Expiry" exists; fix the header to match it exactly`,
		},
		{
			name:    "new spec from MODIFIED",
			delta:   "## MODIFIED Requirements\n### Requirement: X\nThe system SHALL x.\n\n#### Scenario: X\n- **WHEN** x\n- **THEN** x\n",
			wantErr: "auth: target spec does not exist; only ADDED requirements are allowed for new specs.",
		},
		{
			name:   "new spec with placeholder purpose",
			delta:  "## ADDED Requirements\n### Requirement: X\nThe system SHALL x.\n\n#### Scenario: X\n- **WHEN** x\n- **THEN** x\n",
			counts: Counts{Added: 1},
			has:    []string{"# auth Specification\n\n## Purpose\nTBD - created by archiving change ch. Update Purpose after archive.\n\n## Requirements\n\n### Requirement: X\n"},
		},
		{
			name:    "no operations",
			delta:   "# just notes\n",
			target:  baseSpec,
			wantErr: "Delta parsing found no operations for auth.",
		},
		{
			name:    "unpaired rename",
			delta:   "## RENAMED Requirements\n- FROM: `### Requirement: Login`\n",
			target:  baseSpec,
			wantErr: `auth validation failed - RENAMED entry on line 2 has no matching TO: for header "### Requirement: Login".`,
		},
		{
			name:    "delta header in the main spec",
			delta:   "## ADDED Requirements\n### Requirement: X\nThe system SHALL x.\n\n#### Scenario: X\n- **WHEN** x\n- **THEN** x\n",
			target:  baseSpec + "\n## ADDED Requirements\n",
			wantErr: "auth: target spec is structurally invalid and cannot be updated until fixed:\nline 26: Main spec contains delta header",
		},
		{
			name:   "fenced headers are content",
			delta:  "## ADDED Requirements\n### Requirement: F\nThe system SHALL keep:\n\n```\n### Requirement: not real\n\n\n## REMOVED Requirements\n```\n\n#### Scenario: F\n- **WHEN** x\n- **THEN** y\n",
			target: baseSpec, counts: Counts{Added: 1},
			has: []string{"```\n### Requirement: not real\n\n\n## REMOVED Requirements\n```"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Merge("auth", "ch", tt.delta, tt.target, "/r/openspec/specs/auth/spec.md", tt.target != "")
			if tt.wantErr != "" {
				var me *MergeError
				if err == nil || !errors.As(err, &me) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a MergeError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Counts != tt.counts {
				t.Errorf("counts = %+v, want %+v", m.Counts, tt.counts)
			}
			for _, s := range tt.has {
				if !strings.Contains(m.Content, s) {
					t.Errorf("result lacks %q:\n%s", s, m.Content)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(m.Content, s) {
					t.Errorf("result has %q:\n%s", s, m.Content)
				}
			}
		})
	}
}

func TestMatchLineEnding(t *testing.T) {
	tests := []struct{ content, original, want string }{
		{"a\nb\n", "x\r\ny\r\n", "a\r\nb\r\n"},
		{"a\nb\n", "x\ny\n", "a\nb\n"},
		{"a\nb\n", "x\r\ny\n", "a\r\nb\r\n"}, // a tie goes to CRLF
		{"a\nb\n", "no newline", "a\nb\n"},
	}
	for _, tt := range tests {
		if got := matchLineEnding(tt.content, tt.original); got != tt.want {
			t.Errorf("matchLineEnding(%q, %q) = %q, want %q", tt.content, tt.original, got, tt.want)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	want := "--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n"
	if got := UnifiedDiff("x", old, new, true); got != want {
		t.Errorf("UnifiedDiff =\n%s\nwant\n%s", got, want)
	}
	if got := UnifiedDiff("x", old, old, true); got != "" {
		t.Errorf("equal texts: %q", got)
	}
}

func TestYAMLite(t *testing.T) {
	v, err := parseYAMLite("schema: spec-driven # comment\nskip_specs: true\nlist:\n  - a\n  - id: b\n    requires: [x, 'y']\ntext: |\n  line one\n  line two\n")
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["schema"] != "spec-driven" || m["skip_specs"] != true || m["text"] != "line one\nline two\n" {
		t.Errorf("scalars: %#v", m)
	}
	list := m["list"].([]any)
	if list[0] != "a" || strings.Join(stringList(list[1].(map[string]any)["requires"]), ",") != "x,y" {
		t.Errorf("list: %#v", list)
	}
	for _, bad := range []string{"a: [unterminated", "\tx: 1", "a: 1\na: 2", "x: &anchor 1"} {
		if _, err := parseYAMLite(bad); err == nil {
			t.Errorf("parseYAMLite(%q) accepted", bad)
		}
	}
}

func FuzzParseDelta(f *testing.F) {
	f.Add("## ADDED Requirements\n### Requirement: A\nThe system SHALL a.\n#### Scenario: s\n- x\n")
	f.Add("## RENAMED Requirements\n- FROM: `### Requirement: A`\n- TO: `### Requirement: B`\n```\n## REMOVED Requirements\n")
	f.Add("\ufeff## removed requirements\r\n- ### Requirement: x ###\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		p := ParseDelta(s)
		for _, b := range append(p.Added, p.Modified...) {
			if b.Name != NormalizeRequirementName(b.Name) {
				t.Fatalf("name %q is not normalised", b.Name)
			}
		}
		if p.Ops() > 0 && !p.HasSections() {
			t.Fatal("operations without a delta section")
		}
	})
}

func FuzzMerge(f *testing.F) {
	f.Add("## ADDED Requirements\n### Requirement: N\nThe system SHALL n.\n\n#### Scenario: n\n- x\n", baseSpec)
	f.Add("## MODIFIED Requirements\n### Requirement: Login\nThe system SHALL.\n#### Scenario: Ok\n- a\n#### Scenario: Wrong\n- b\n", baseSpec)
	f.Fuzz(func(t *testing.T, delta, target string) {
		m, err := Merge("cap", "ch", delta, target, "/r/openspec/specs/cap/spec.md", true)
		if err != nil {
			var me *MergeError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a MergeError", err)
			}
			return
		}
		if !strings.HasSuffix(m.Content, "\n") {
			t.Fatalf("merged spec does not end with a newline: %q", m.Content)
		}
		_ = ValidateSpecContent("cap", m.Content)
	})
}

// TestYAMLiteBlockScalars: literal and folded block scalars read as the
// yaml package OpenSpec uses reads them (each want was printed by it):
// deeper indentation kept, final breaks clipped, stripped or kept,
// folded lines joined.
// The core schema's other number forms, each checked against the yaml
// package OpenSpec 1.13.2 reads config.yaml with.
func TestYAMLiteCoreNumbers(t *testing.T) {
	for _, tc := range []struct {
		plain string
		want  any
	}{
		{"0o17", 15.0}, {"0x1F", 31.0}, {"0xffffffffffffffffff", 0xffffffffffffffffff * 1.0},
		{"0X10", "0X10"}, {"0x", "0x"}, {"0o8", "0o8"}, {"-0o7", "-0o7"}, {"+0x1", "+0x1"}, {"0x1F_0", "0x1F_0"},
		{"12", 12.0}, {"1e3", 1000.0}, {"1_000", "1_000"}, {"0b101", "0b101"},
		{".inf", math.Inf(1)}, {"-.Inf", math.Inf(-1)}, {"+.INF", math.Inf(1)}, {".Nan", ".Nan"},
	} {
		v, err := parseYAMLite("v: " + tc.plain + "\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.plain, err)
		}
		if got := v.(map[string]any)["v"]; got != tc.want {
			t.Errorf("v: %s = %#v, want %#v", tc.plain, got, tc.want)
		}
	}
	v, _ := parseYAMLite("v: .NaN\n")
	if f, ok := v.(map[string]any)["v"].(float64); !ok || !math.IsNaN(f) {
		t.Errorf("v: .NaN = %#v, want NaN", v)
	}
}

func TestYAMLiteBlockScalars(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"v: |\n  a\n  b\n", "a\nb\n"},
		{"v: |\n  a\n    b\n  c\nw: 1\n", "a\n  b\nc\n"},
		{"v: |-\n  a\n  b\n\n", "a\nb"},
		{"v: |+\n  a\n  b\n\n\nw: 1\n", "a\nb\n\n\n"},
		{"v: |\n  a\n\n  b\n\n", "a\n\nb\n"},
		{"v: >\n  a\n  b\n\n  c\n", "a b\nc\n"},
		{"v: >\n  a\n    b\n  c\n", "a\n  b\nc\n"},
		{"v: >-\n  a\n\n\n  b\n", "a\n\nb"},
		{"v: >\n  a\n\n    b\n  c\n", "a\n\n  b\nc\n"},
		{"v: |2\n    a\n  b\n", "  a\nb\n"},
		{"v: |\n\n  a\n", "\na\n"},
		{"v: |\nw: 1\n", ""},
	} {
		v, err := parseYAMLite(tc.doc)
		if err != nil {
			t.Errorf("%q: %v", tc.doc, err)
			continue
		}
		if got := v.(map[string]any)["v"]; got != tc.want {
			t.Errorf("%q: v = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// TestYAMLiteFlowCollections: one-line flow sequences and mappings read
// as the yaml package OpenSpec uses reads them (each want checked against
// it), and what it refuses is an error.
func TestYAMLiteFlowCollections(t *testing.T) {
	checkYAMLiteValues(t, []yamlCase{
		{"v: []", `[]`},
		{"v: [a, b]", `["a","b"]`},
		{`v: ['a, b', "c]"]`, `["a, b","c]"]`},
		{"v: {}", `{}`},
		{`v: {guidance: [Run it., "x, y"]}`, `{"guidance":["Run it.","x, y"]}`},
		{"v: [1, true, null, a b]", `[1,true,null,"a b"]`},
		{"v: {a: , b: 2}", `{"a":null,"b":2}`},
		{"v: [http://x.y/z, a:b]", `["http://x.y/z","a:b"]`},
		{"v: ['it''s']", `["it's"]`},
		{"v: [[a], {b: c}]", `[["a"],{"b":"c"}]`},
		{`v: {"a":1}`, `{"a":1}`},
		{"v: [a, b", ""},
		{"v: {a: 1, a: 2}", ""},
		{"v: [a] b", ""},
	})
}

// Plain and quoted values as the yaml package OpenSpec uses reads them
// (the wants were checked against it): a quote opens a quoted value only
// where a value starts, so an apostrophe in a plain value does not hide a
// comment; double-quoted escapes; a value YAML refuses (a second ": ", an
// indicator) is an error, so the file goes to the real CLI.
func TestYAMLiteScalars(t *testing.T) {
	checkYAMLiteValues(t, []yamlCase{
		{"v: It's a Go CLI # note", `"It's a Go CLI"`},
		{`v: "it's # not a comment" # but this is`, `"it's # not a comment"`},
		{`v: 'it''s # still' # comment`, `"it's # still"`},
		{`v: a:b and c-d are words`, `"a:b and c-d are words"`},
		{`v: url http://x.y/z#frag`, `"url http://x.y/z#frag"`},
		{`v: "caf\u00e9 \x41\t\"q\" \\ \/ \e"`, `"café A\t\"q\" \\ / \u001b"`},
		{`v: "\U0001F600"`, `"😀"`},
		{"v: [\"a # b\", it's]", `["a # b","it's"]`},
		{"v: Tech stack: Go", ""},
		{"v: trailing colon:", ""},
		{"v: @team", ""},
		{"v: `x`", ""},
		{"v: - x", ""},
		{"v: %x", ""},
		{`v: "bad \q escape"`, ""},
		{`v: "short \x4"`, ""},
	})
}

// yamlCase is a one-key document and the JSON of its value v ("": the
// document is an error).
type yamlCase struct{ doc, want string }

func checkYAMLiteValues(t *testing.T, cases []yamlCase) {
	t.Helper()
	for _, tc := range cases {
		v, err := parseYAMLite(tc.doc)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: read as %v, want an error", tc.doc, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.doc, err)
			continue
		}
		got, err := json.Marshal(v.(map[string]any)["v"])
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: v = %s (%v), want %s", tc.doc, got, err, tc.want)
		}
	}
}
