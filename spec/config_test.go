package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigWarning: openspec/config.yaml problems are warnings in
// OpenSpec 1.13's words (checked against the CLI), never fatal, and a file
// that does not parse is named with the line of the problem.
func TestConfigWarning(t *testing.T) {
	tests := []struct {
		name, config string
		want         string // "%s" stands for the file's path
		schema       string
	}{
		{"absent", "", "", "spec-driven"},
		{"valid", "schema: custom\n", "", "custom"},
		{"unterminated string", "schema: spec-driven\ncontext: \"unterminated\nrules: [a\n", "Warning: could not parse %s (line 2: unterminated string); ignoring it.", "spec-driven"},
		{"bad indentation", "schema: custom\n  bad: indent\n", "Warning: could not parse %s (line 2: bad indentation); ignoring it.", "spec-driven"},
		{"tab", "schema: custom\n\tx: 1\n", "Warning: could not parse %s (line 2: tab indentation); ignoring it.", "spec-driven"},
		{"empty file", "\n", "openspec/config.yaml is not a valid YAML object", "spec-driven"},
		{"comment only", "# nothing\n", "openspec/config.yaml is not a valid YAML object", "spec-driven"},
		{"scalar", "just a string\n", "openspec/config.yaml is not a valid YAML object", "spec-driven"},
		{"sequence", "- a\n- b\n", "", "spec-driven"},
		{"empty schema", "schema: \"\"\n", "Invalid 'schema' field in config (must be non-empty string)", "spec-driven"},
		{"list schema", "schema: [a]\n", "Invalid 'schema' field in config (must be non-empty string)", "spec-driven"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Root{Dir: t.TempDir()}
			path := filepath.Join(r.OpenSpecDir(), "config.yaml")
			if err := os.MkdirAll(filepath.Join(r.ChangesDir(), "c"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.name != "absent" {
				if err := os.WriteFile(path, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := r.ConfigWarning()
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Replace(tt.want, "%s", path, 1); got != want {
				t.Errorf("ConfigWarning() = %q, want %q", got, want)
			}
			if s, err := r.SchemaName("c"); err != nil || s != tt.schema {
				t.Errorf("SchemaName = %q, %v; want %q (a config problem is not fatal)", s, err, tt.schema)
			}
		})
	}
}
