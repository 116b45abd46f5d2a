package plan

import "testing"

func TestLooksLikeTaskHeading(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"### Taks 1: alpha", true},
		{"### Tsak 2: beta", true},
		{"## Tasl 3", true},
		{"# Task 1: one hash", true},
		{"## Task #2: hash", true},
		{"## Task: no number", true},
		{"## **Task 4**: bold", true},
		{"## Tasks", false},
		{"## Task list", false},
		{"## Test 1: other word", false},
		{"## Talk 1", true},
		{"## Overview", false},
		{"####### Task 1: too deep", false},
	}
	for _, tc := range tests {
		if got := looksLikeTaskHeading(tc.line); got != tc.want {
			t.Errorf("looksLikeTaskHeading(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestParsePlanNearHeadings(t *testing.T) {
	p, err := ParsePlan([]byte("# Plan\n### Taks 1: a\nFiles: a\n### Task 2: b\nFiles: b\n```\n### Taks 3: fenced\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.NearHeadings) != 1 || p.NearHeadings[0].Line != 2 {
		t.Fatalf("NearHeadings = %+v, want line 2 only", p.NearHeadings)
	}
	fs := p.Preflight(nil)
	if len(fs) == 0 || fs[0].Kind != FindingNearHeading || !fs[0].Blocking() {
		t.Fatalf("Preflight = %+v, want a blocking near-heading first", fs)
	}
}
