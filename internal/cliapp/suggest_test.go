package cliapp

import "testing"

func TestClosest(t *testing.T) {
	verbs := []string{"run", "resume", "status", "stats", "instructions", "review"}
	for _, tc := range []struct {
		word, want string
	}{
		{"rnu", "run"},
		{"rum", "run"},
		{"resmue", "resume"},
		{"instrctions", "instructions"},
		{"intsrcutoins", ""}, // three edits: too far
		{"statsu", ""},       // one edit from status and from stats
		{"xyzzy", ""},
		{"ru", ""}, // two letters: no guess
		{"", ""},
	} {
		if got := closest(tc.word, verbs); got != tc.want {
			t.Errorf("closest(%q) = %q; want %q", tc.word, got, tc.want)
		}
	}
}
