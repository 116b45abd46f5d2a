package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// projectConfig is what specstack reads of openspec/config.yaml.
type projectConfig struct {
	path    string // the file read; "" when the project has none
	schema  string // the schema it names, or ""
	warning string // what OpenSpec warns about the file, or ""
	// store is the store the file declares (a string store: key), "" for
	// none; storeBad: it has a store: key OpenSpec cannot use (not a
	// string, or the file does not parse).
	store    string
	storeBad bool
	// context is its context: text, when a string; plain is false when
	// the file says more than instructions reads natively (rules,
	// references, a context that is not a string).
	context string
	plain   bool
}

// configPath is openspec/config.yaml, else openspec/config.yml, when either
// exists (whatever its kind), as OpenSpec's resolveConfigFilePath picks it.
func (r Root) configPath() string {
	for _, name := range []string{"config.yaml", "config.yml"} {
		p := filepath.Join(r.OpenSpecDir(), name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// readProjectConfig reads openspec/config.yaml as OpenSpec 1.13's
// readProjectConfig does: a file that does not parse is ignored with a
// warning naming the file and the line, a document that is not a mapping
// or a schema field that is not a non-empty string likewise; none of them
// is fatal. A config path that is not a regular file is an error wrapping
// regfile.ErrNotRegular (it is never opened).
func (r Root) readProjectConfig() (projectConfig, error) {
	if r.memo != nil {
		return r.memo.projectConfig(r.loadProjectConfig)
	}
	return r.loadProjectConfig()
}

func (r Root) loadProjectConfig() (projectConfig, error) {
	c := projectConfig{path: r.configPath(), plain: true}
	if c.path == "" {
		return c, nil
	}
	c.plain = false
	raw, err := r.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return projectConfig{}, nil
	}
	if err != nil {
		return c, err
	}
	v, err := parseYAMLite(string(raw))
	if err != nil {
		c.warning = fmt.Sprintf("Warning: could not parse %s (%v); ignoring it.", c.path, err)
		c.storeBad = true
		return c, nil
	}
	switch m := v.(type) {
	case map[string]any:
		if st, ok := m["store"]; ok {
			c.store, ok = st.(string)
			c.storeBad = !ok
		}
		ctx, isText := m["context"].(string)
		c.context = ctx
		c.plain = (isText || !hasKey(m, "context")) && !hasKey(m, "rules") && !hasKey(m, "references")
		s, isString := m["schema"].(string)
		switch {
		case isString && s != "":
			c.schema = s
		case hasKey(m, "schema"):
			c.warning = "Invalid 'schema' field in config (must be non-empty string)"
		}
	case []any:
		// An array is an object to OpenSpec: no warning, and no schema.
	default:
		c.warning = "openspec/config.yaml is not a valid YAML object"
	}
	return c, nil
}

// InstructionsContext is openspec/config.yaml's context: (as OpenSpec's
// instructions hand it out: trimmed; "" for none); plain is false when
// the file says anything else instructions would read or warn about
// (rules, references, a context that is not text, a file that does not
// parse or is no mapping).
// A file that cannot be read is an error (ErrOutside for a link out of
// the repository).
func (r Root) InstructionsContext() (context string, plain bool, err error) {
	c, err := r.readProjectConfig()
	if err != nil || c.warning != "" || !c.plain {
		return "", false, err
	}
	return jstext.Trim(c.context), true, nil
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// StoreDeclared reports the store openspec/config.yaml declares (its
// store: key, OpenSpec 1.13.2's pointer to a registered store) and the
// file; declared is false when it declares none. A store: key OpenSpec
// cannot use (not a string, or a file that does not parse) is declared
// with an empty store.
func (r Root) StoreDeclared() (store, file string, declared bool) {
	c, err := r.readProjectConfig()
	if err != nil || (c.store == "" && !c.storeBad) {
		return "", "", false
	}
	return c.store, c.path, true
}

// PlanningShape reports whether openspec/ holds specs/ or changes/ (not a
// store's marker): OpenSpec 1.13.2 takes such a root as it is, whatever
// its config declares.
func (r Root) PlanningShape() bool {
	for _, sub := range []string{"specs", "changes"} {
		p := filepath.Join(r.OpenSpecDir(), sub)
		if _, err := os.Stat(filepath.Join(p, ".openspec-store", "store.yaml")); isDir(p) && err != nil {
			return true
		}
	}
	return false
}

// ConfigWarning is the warning line OpenSpec prints for
// openspec/config.yaml when it reads the file (it then ignores what it
// could not use), or "". A file that does not parse is named with the
// line of the first problem.
// A config path that is not a regular file is an error wrapping
// regfile.ErrNotRegular.
func (r Root) ConfigWarning() (string, error) {
	c, err := r.readProjectConfig()
	return c.warning, err
}
