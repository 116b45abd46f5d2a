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
	// unparsed: specstack's YAML reader could not read the file (OpenSpec's
	// own may: it is a fuller YAML reader, and its error text is its own).
	unparsed bool
	// context is its context: when a string of at most 50 KB (OpenSpec's
	// limit); contextOdd: a context OpenSpec warns about and ignores.
	context    string
	contextOdd bool
	// What the instructions verbs read besides: rules (and whether
	// OpenSpec would warn about them), references, operations' guidance
	// (clean: nothing OpenSpec would warn about, nor githubCopilot).
	rules, rulesOdd bool
	references      bool
	guidance        map[string][]string
	clean           bool
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
	c := projectConfig{path: r.configPath(), clean: true}
	if c.path == "" {
		return c, nil
	}
	c.clean = false
	raw, err := r.ReadText(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return projectConfig{}, nil
	}
	if err != nil {
		return c, err
	}
	v, err := parseYAMLite(string(raw))
	if err != nil {
		c.warning = fmt.Sprintf("Warning: could not parse %s (%v); ignoring it.", c.path, err)
		c.storeBad, c.unparsed = true, true
		return c, nil
	}
	switch m := v.(type) {
	case map[string]any:
		if st, ok := m["store"]; ok {
			c.store, ok = st.(string)
			c.storeBad = !ok
		}
		ctx, isText := m["context"].(string)
		c.contextOdd = hasKey(m, "context") && (!isText || len(ctx) > maxContext)
		if isText && !c.contextOdd {
			c.context = ctx
		}
		c.rules, c.rulesOdd = hasKey(m, "rules"), hasKey(m, "rules") && !cleanRules(m["rules"])
		c.references = hasKey(m, "references")
		c.guidance, c.clean = readOperations(m["operations"], hasKey(m, "operations"))
		c.clean = c.clean && (!hasKey(m, "githubCopilot") || cleanCopilot(m["githubCopilot"]))
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

// maxContext is OpenSpec's limit on config.yaml's context, in bytes.
const maxContext = 50 << 10

// InstructionsContext is openspec/config.yaml's context: as OpenSpec's
// artifact instructions hand it out (trimmed; "" for none); plain is
// false when the file says anything else they would read or warn about
// (rules, references, a context that is not text or too long, operations
// OpenSpec would warn about, a file that does not parse or is no
// mapping). A file that cannot be read is an error (ErrOutside for a
// link out of the repository).
func (r Root) InstructionsContext() (context string, plain bool, err error) {
	c, err := r.readProjectConfig()
	if err != nil || !c.plainBut(c.rules) {
		return "", false, err
	}
	return jstext.Trim(c.context), true, nil
}

// OperationInputs is what OpenSpec's instructions for an operation
// ("apply" or "archive") hand out of openspec/config.yaml: its context
// (as written; "" when none or only whitespace) and the operation's
// guidance. plain is false when the file says anything else they would
// read or warn about (references, rules OpenSpec warns about, a context
// that is not text or too long, operations it warns about, a file that
// does not parse or is no mapping).
func (r Root) OperationInputs(op string) (context string, guidance []string, plain bool, err error) {
	c, err := r.readProjectConfig()
	if err != nil || !c.plainBut(c.rulesOdd) {
		return "", nil, false, err
	}
	if jstext.Trim(c.context) != "" {
		context = c.context
	}
	return context, c.guidance[op], true, nil
}

// plainBut reports whether the file holds nothing the instructions verbs
// would warn about or read beyond context and guidance, rules aside (a
// verb says what of them it cannot take).
func (c projectConfig) plainBut(rules bool) bool {
	return c.warning == "" && c.clean && !c.contextOdd && !c.references && !rules
}

// cleanRules reports whether rules (config.yaml's rules:) is what OpenSpec reads without a warning: a mapping of artifact ids to
// lists of non-empty strings.
func cleanRules(rules any) bool {
	m, ok := rules.(map[string]any)
	if !ok {
		return false
	}
	for _, v := range m {
		if !nonEmptyStrings(v) {
			return false
		}
	}
	return true
}

// readOperations reads config.yaml's operations: (present: the key is
// there) as OpenSpec's parseOperations does; clean is false when it would
// warn (not a mapping, an unknown operation or field, guidance that is
// not a list of non-empty strings).
func readOperations(ops any, present bool) (guidance map[string][]string, clean bool) {
	if !present {
		return nil, true
	}
	m, ok := ops.(map[string]any)
	if !ok {
		return nil, false
	}
	guidance = map[string][]string{}
	for id, v := range m {
		op, ok := v.(map[string]any)
		if (id != "apply" && id != "archive") || !ok {
			return nil, false
		}
		for k := range op {
			if k != "guidance" {
				return nil, false
			}
		}
		g, present := op["guidance"]
		if !present {
			continue
		}
		if !nonEmptyStrings(g) {
			return nil, false
		}
		for _, x := range g.([]any) {
			guidance[id] = append(guidance[id], x.(string))
		}
	}
	return guidance, true
}

// cleanCopilot reports whether githubCopilot: is read without a warning:
// a mapping whose cloudAgent, if any, is a boolean.
func cleanCopilot(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if ca, present := m["cloudAgent"]; present {
		_, ok = ca.(bool)
	}
	return ok
}

// nonEmptyStrings reports whether v is a list of non-empty strings.
func nonEmptyStrings(v any) bool {
	xs, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range xs {
		if s, ok := x.(string); !ok || s == "" {
			return false
		}
	}
	return true
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

// ConfigUnparsed reports whether openspec/config.yaml exists and
// specstack's YAML reader could not read it: OpenSpec's reader (a full
// YAML 1.2 one) may read it, or fail with words of its own, so only the
// real CLI answers for it exactly.
func (r Root) ConfigUnparsed() bool {
	c, err := r.readProjectConfig()
	return err == nil && c.unparsed
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
