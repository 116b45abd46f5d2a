package e2e

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

var (
	// identRe: a key that reads as a field name (not data such as a
	// command line, a path or a change name used as a map key).
	identRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	// envRe: an environment variable's name, data in a map of them.
	envRe   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
	snakeRe = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
)

// jsonkeys [KEY...]: the last command's stdout is one JSON document and
// every object key in it that reads as a field name is snake_case, except
// the KEYs named (an OpenSpec-parity verb's camelCase names). Keys that
// are data (paths, commands, change names, NAME_OF_VARIABLE) are passed
// over; TestEmittedJSONNames in internal/cliapp checks the types exactly.
func jsonkeys(ts *testscript.TestScript, neg bool, args []string) {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not JSON (%v):\n%s", err, ts.ReadFile("stdout"))
	}
	bad := notSnake(v, args)
	if neg != (len(bad) == 0) {
		return
	}
	if neg {
		ts.Fatalf("every JSON key is snake_case")
	}
	ts.Fatalf("JSON keys not snake_case: %s", strings.Join(bad, ", "))
}

// notSnake returns, sorted and once each, the keys in v that read as
// field names but are not snake_case, leaving out those in allow.
func notSnake(v any, allow []string) []string {
	var bad []string
	for _, k := range objectKeys(v) {
		if identRe.MatchString(k) && !envRe.MatchString(k) && !snakeRe.MatchString(k) && !slices.Contains(allow, k) {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// objectKeys returns the keys of every object in the decoded JSON v.
func objectKeys(v any) []string {
	var keys []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				keys = append(keys, k)
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return keys
}
