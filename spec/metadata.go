package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/spec/internal/jstext"
)

// changeMetadata is what specstack reads of a change's .openspec.yaml.
type changeMetadata struct {
	present bool
	invalid string // why the file is not valid change metadata, as OpenSpec words it; "" when valid
	err     error  // set when the file is not a regular file (regfile.ErrNotRegular)
	schema  string
	// skip_specs: its value when valid, and whether the file names it
	// with anything but false (which makes an invalid file an invalid
	// marker rather than no marker).
	skipSpecs    bool
	skipMentions bool
	retire       bool // retire_capabilities: true, in valid metadata
}

var createdDate = lazyregexp.New(`^\d{4}-\d{2}-\d{2}$`)

// readChangeMetadata reads .openspec.yaml with the checks of OpenSpec's
// ChangeMetadataSchema, reporting the first problem in its words.
func readChangeMetadata(changeDir string) changeMetadata {
	raw, err := regfile.Read(filepath.Join(changeDir, ".openspec.yaml"))
	raw = jstext.Decode(raw)
	if errors.Is(err, fs.ErrNotExist) {
		return changeMetadata{}
	}
	md := changeMetadata{present: true}
	if err != nil {
		md.invalid = fmt.Sprintf("the metadata file cannot be read (%v)", err)
		md.skipMentions = true
		if errors.Is(err, regfile.ErrNotRegular) {
			md.err = err
		}
		return md
	}
	v, err := parseYAMLite(string(raw))
	if err != nil {
		md.invalid = "the file is not valid YAML"
		md.skipMentions = mentionsKey(string(raw), "skip_specs")
		return md
	}
	m, ok := v.(map[string]any)
	if !ok {
		md.invalid = "Invalid input: expected object, received " + yamlType(v)
		return md
	}
	if sk, has := m["skip_specs"]; has && sk != false {
		md.skipMentions = true
	}
	md.invalid = metadataProblem(m)
	if md.invalid == "" {
		md.schema = m["schema"].(string)
		md.skipSpecs = m["skip_specs"] == true
		md.retire = m["retire_capabilities"] == true
	}
	return md
}

// metadataProblem is the first issue OpenSpec's zod schema reports, in
// field order, as "path: message".
func metadataProblem(m map[string]any) string {
	typeErr := func(key, want string) string {
		return fmt.Sprintf("%s: Invalid input: expected %s, received %s", key, want, yamlType(m[key]))
	}
	switch s, ok := m["schema"].(string); {
	case !ok:
		return typeErr("schema", "string")
	case s == "":
		return "schema: schema is required"
	}
	if c, has := m["created"]; has {
		s, ok := c.(string)
		if !ok {
			return typeErr("created", "string")
		}
		if !createdDate.MatchString(s) {
			return "created: created must be YYYY-MM-DD format"
		}
	}
	if g, has := m["goal"]; has {
		s, ok := g.(string)
		if !ok {
			return typeErr("goal", "string")
		}
		if s == "" {
			return "goal: Too small: expected string to have >=1 characters"
		}
	}
	if a, has := m["affected_areas"]; has {
		xs, ok := a.([]any)
		if !ok {
			return typeErr("affected_areas", "array")
		}
		for i, x := range xs {
			s, ok := x.(string)
			if !ok {
				return fmt.Sprintf("affected_areas.%d: Invalid input: expected string, received %s", i, yamlType(x))
			}
			if s == "" {
				return fmt.Sprintf("affected_areas.%d: Too small: expected string to have >=1 characters", i)
			}
		}
	}
	if _, has := m["initiative"]; has {
		if _, ok := m["initiative"].(map[string]any); !ok {
			return typeErr("initiative", "object")
		}
	}
	for _, key := range []string{"skip_specs", "retire_capabilities"} {
		if b, has := m[key]; has {
			if _, ok := b.(bool); !ok {
				return typeErr(key, "boolean")
			}
		}
	}
	return ""
}

// yamlType names a decoded YAML value as zod reports a received type.
func yamlType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func mentionsKey(raw, key string) bool {
	for _, l := range strings.Split(raw, "\n") {
		t := strings.TrimLeft(l, " \t")
		for _, q := range []string{"", "'", `"`} {
			if strings.HasPrefix(t, q+key+q) && strings.HasPrefix(strings.TrimLeft(t[len(q+key+q):], " \t"), ":") {
				return true
			}
		}
	}
	return false
}

// ChangeBase returns the base: field of the change's .openspec.yaml (a
// commit ID recording the main specs the change's deltas were written
// against), or "" when there is none.
func (r Root) ChangeBase(change string) string {
	raw, err := r.ReadText(filepath.Join(r.ChangeDir(change), ".openspec.yaml"))
	if err != nil {
		return ""
	}
	v, err := parseYAMLite(string(raw))
	if err != nil {
		return ""
	}
	m, _ := v.(map[string]any)
	s, _ := m["base"].(string)
	return strings.TrimSpace(s)
}
