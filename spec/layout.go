package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/specstack/specstack/spec/tasksmd"
)

// Root is an OpenSpec project: the directory holding openspec/.
type Root struct {
	Dir string
	// memo, when set, remembers schema lookups for one operation over
	// many changes (memoized); nil reads the files every time.
	memo *schemaMemo
	// Bound is the directory that archive and tasks tick never read or
	// write outside of, through any symbolic link (the repository root);
	// empty means Dir.
	Bound string
	// Implicit: no root was found, and Dir is the directory the command
	// ran in, taken as the root as OpenSpec 1.13.2 takes it (its
	// root.source "implicit").
	Implicit bool
}

// ErrNoRoot reports that no openspec/ directory was found.
var ErrNoRoot = errors.New("no openspec/ directory here or in any parent")

// FindRoot returns the nearest directory at or above dir that contains an
// openspec/ directory, as the OpenSpec CLI chooses its root.
func FindRoot(dir string) (Root, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("resolve %q: %w", dir, err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, "openspec")); err == nil && fi.IsDir() {
			return Root{Dir: d}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Root{}, fmt.Errorf("find OpenSpec root from %q: %w (run `jj openspec init` or pass --repo)", dir, ErrNoRoot)
		}
		d = parent
	}
}

// FindOpenSpecRoot chooses the root as OpenSpec 1.13.2 does without
// stores: the nearest directory at or above dir whose openspec/ directory
// holds a specs/ or changes/ directory (not a store's, marked by
// .openspec-store/store.yaml) or a config.yaml (config.yml); an openspec/
// without any of them is passed over for one further up. None is
// ErrNoRoot.
func FindOpenSpecRoot(dir string) (Root, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("resolve %q: %w", dir, err)
	}
	for {
		if qualifies(filepath.Join(d, "openspec")) {
			return Root{Dir: d}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Root{}, fmt.Errorf("find OpenSpec root from %q: %w (run `jj openspec init` or pass --repo)", dir, ErrNoRoot)
		}
		d = parent
	}
}

// qualifies reports whether osDir is an openspec/ directory OpenSpec
// 1.13.2 takes for a root's.
func qualifies(osDir string) bool {
	if !isDir(osDir) {
		return false
	}
	for _, sub := range []string{"specs", "changes"} {
		p := filepath.Join(osDir, sub)
		if _, err := os.Stat(filepath.Join(p, ".openspec-store", "store.yaml")); isDir(p) && err != nil {
			return true
		}
	}
	for _, name := range []string{"config.yaml", "config.yml"} {
		if _, err := os.Stat(filepath.Join(osDir, name)); err == nil {
			return true
		}
	}
	return false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// OpenSpecDir is <root>/openspec.
func (r Root) OpenSpecDir() string { return filepath.Join(r.Dir, "openspec") }

// ChangesDir is <root>/openspec/changes.
func (r Root) ChangesDir() string { return filepath.Join(r.Dir, "openspec", "changes") }

// SpecsDir is <root>/openspec/specs.
func (r Root) SpecsDir() string { return filepath.Join(r.Dir, "openspec", "specs") }

// ArchiveDir is <root>/openspec/changes/archive.
func (r Root) ArchiveDir() string { return filepath.Join(r.ChangesDir(), "archive") }

// ChangeDir is the directory of change name.
func (r Root) ChangeDir(name string) string { return filepath.Join(r.ChangesDir(), name) }

// ErrChangeNotFound reports a change that does not exist.
var ErrChangeNotFound = errors.New("change not found")

// ChangeNames lists the active changes (directories under changes/ other
// than archive), sorted.
func (r Root) ChangeNames() ([]string, error) {
	entries, err := os.ReadDir(r.ChangesDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", r.ChangesDir(), err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "archive" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// ChangeLinkedOut is the *LinkError (wrapping ErrOutside) for a change
// folder that is a symbolic link leading out of the repository, nil for
// any other: a verb that would hand such a change to a reader that
// follows links (the real OpenSpec CLI) refuses it instead.
func (r Root) ChangeLinkedOut(change string) error {
	fi, err := os.Lstat(r.ChangeDir(change))
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	if _, err := r.Resolve(r.ChangeDir(change)); errors.Is(err, ErrOutside) {
		return err
	}
	return nil
}

// CheckChange returns an error wrapping ErrChangeNotFound, naming the
// available changes, unless name is an existing change directory.
func (r Root) CheckChange(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("change name %q: must be a single directory name under openspec/changes/: %w", name, ErrChangeNotFound)
	}
	fi, err := os.Lstat(r.ChangeDir(name))
	if err == nil && fi.IsDir() {
		return nil
	}
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("change %q is a symbolic link; replace it with a real directory", name)
	}
	names, err := r.ChangeNames()
	if err != nil {
		return fmt.Errorf("change %q: %w; the available changes cannot be listed: %w", name, ErrChangeNotFound, err)
	}
	if len(names) == 0 {
		return fmt.Errorf("change %q: %w: there are no active changes under %s", name, ErrChangeNotFound, r.ChangesDir())
	}
	return fmt.Errorf("change %q: %w; available changes: %s", name, ErrChangeNotFound, strings.Join(names, ", "))
}

// SchemaName resolves the schema of a change: its .openspec.yaml, then
// openspec/config.yaml, then spec-driven. An .openspec.yaml that is not
// valid change metadata is an error, as it is for the OpenSpec CLI; one
// (or a config file) that is not a regular file is an error wrapping
// regfile.ErrNotRegular.
func (r Root) SchemaName(change string) (string, error) {
	return r.schemaName(change, readChangeMetadata(r.ChangeDir(change)))
}

// schemaName is SchemaName with the change's metadata already read.
func (r Root) schemaName(change string, md changeMetadata) (string, error) {
	if md.err != nil {
		return "", fmt.Errorf("change %q: %w", change, md.err)
	}
	if md.invalid != "" {
		return "", fmt.Errorf("change %q: %s is not valid change metadata: %s; fix it (it needs `schema: <name>`)", change, filepath.Join(r.ChangeDir(change), ".openspec.yaml"), md.invalid)
	}
	if md.schema != "" {
		return md.schema, nil
	}
	return r.DefaultSchema()
}

// DefaultSchema is the schema a change without its own gets:
// openspec/config.yaml's, else spec-driven.
func (r Root) DefaultSchema() (string, error) {
	c, err := r.readProjectConfig()
	if err != nil {
		return "", err
	}
	if c.schema != "" {
		return c.schema, nil
	}
	return "spec-driven", nil
}

// Artifact is one artifact of a workflow schema.
type Artifact struct {
	ID        string   `json:"id"`
	Generates string   `json:"generates"`
	Requires  []string `json:"requires,omitempty"`
	// What instructions hand an agent, from schema.yaml (none for the
	// built-in SpecDriven, which only status reads).
	Description string  `json:"-"`
	Template    string  `json:"-"` // a file under the schema's templates/
	Instruction *string `json:"-"` // nil when the schema gives none
}

// Schema is a workflow schema: the artifacts a change produces and what
// apply needs.
type Schema struct {
	Name          string     `json:"name"`
	Source        string     `json:"source"` // "built-in" or the schema.yaml path
	Artifacts     []Artifact `json:"artifacts"`
	ApplyRequires []string   `json:"apply_requires"`
	ApplyTracks   string     `json:"apply_tracks,omitempty"`
	// ApplyInstruction is what instructions apply hands an agent, from
	// schema.yaml (nil when the schema gives none).
	ApplyInstruction *string `json:"-"`
}

// SpecDriven is OpenSpec 1.13's built-in default schema.
var SpecDriven = Schema{
	Name:   "spec-driven",
	Source: "built-in",
	Artifacts: []Artifact{
		{ID: "proposal", Generates: "proposal.md"},
		{ID: "specs", Generates: "specs/**/*.md", Requires: []string{"proposal"}},
		{ID: "design", Generates: "design.md", Requires: []string{"proposal"}},
		{ID: "tasks", Generates: "tasks.md", Requires: []string{"specs", "design"}},
	},
	ApplyRequires: []string{"tasks"},
	ApplyTracks:   "tasks.md",
}

// LoadSchema finds schema name: openspec/schemas/<name>/schema.yaml in the
// project, else the built-in spec-driven.
func (r Root) LoadSchema(name string) (Schema, error) {
	if r.memo != nil {
		return r.memo.schema(name, r.loadSchema)
	}
	return r.loadSchema(name)
}

func (r Root) loadSchema(name string) (Schema, error) {
	path := filepath.Join(r.OpenSpecDir(), "schemas", name, "schema.yaml")
	raw, err := r.ReadText(path)
	if errors.Is(err, fs.ErrNotExist) {
		if name == "spec-driven" {
			return SpecDriven, nil
		}
		return Schema{}, fmt.Errorf("schema %q: not found in %s and not built in (built-in: spec-driven)", name, filepath.Dir(path))
	}
	if err != nil {
		return Schema{}, err
	}
	return ParseSchema(name, path, raw)
}

// ParseSchema reads schema.yaml (raw, read from path) of schema name.
func ParseSchema(name, path string, raw []byte) (Schema, error) {
	v, err := parseYAMLite(string(raw))
	if err != nil {
		return Schema{}, fmt.Errorf("parse %q: %w", path, err)
	}
	m, _ := v.(map[string]any)
	s := Schema{Name: name, Source: path}
	arts, _ := m["artifacts"].([]any)
	for i, a := range arts {
		am, _ := a.(map[string]any)
		id, _ := am["id"].(string)
		gen, _ := am["generates"].(string)
		if id == "" || gen == "" {
			return Schema{}, fmt.Errorf("parse %q: artifact %d needs an id and generates", path, i+1)
		}
		a := Artifact{ID: id, Generates: gen, Requires: stringList(am["requires"])}
		a.Description, _ = am["description"].(string)
		a.Template, _ = am["template"].(string)
		if in, ok := am["instruction"].(string); ok {
			a.Instruction = &in
		}
		s.Artifacts = append(s.Artifacts, a)
	}
	if len(s.Artifacts) == 0 {
		return Schema{}, fmt.Errorf("parse %q: no artifacts", path)
	}
	if ap, ok := m["apply"].(map[string]any); ok {
		s.ApplyRequires = stringList(ap["requires"])
		s.ApplyTracks, _ = ap["tracks"].(string)
		if in, ok := ap["instruction"].(string); ok {
			s.ApplyInstruction = &in
		}
	}
	if s.ApplyRequires == nil {
		for _, a := range s.Artifacts {
			s.ApplyRequires = append(s.ApplyRequires, a.ID)
		}
	}
	return s, nil
}

func stringList(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Outputs lists the files under changeDir that an artifact's generates
// (a path or a glob) matches, sorted. As OpenSpec 1.13.2 reads a glob,
// backslashes in it are separators (a schema written on Windows); a plain
// path is taken as it is.
func Outputs(changeDir, generates string) []string {
	pat := strings.ReplaceAll(generates, `\`, "/")
	if !isOutputGlob(pat) {
		if fi, err := os.Stat(filepath.Join(changeDir, generates)); err == nil && fi.Mode().IsRegular() {
			return []string{filepath.Join(changeDir, generates)}
		}
		return nil
	}
	matches, err := doublestar.Glob(os.DirFS(changeDir), pat, doublestar.WithFilesOnly())
	if err != nil {
		return nil
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = filepath.Join(changeDir, filepath.FromSlash(m))
	}
	sort.Strings(out)
	return out
}

// isOutputGlob is OpenSpec 1.13.2's test of a generates pattern: a
// wildcard, a character class, or a brace expansion that lists (a,b) or
// ranges (1..3); other braces are literal.
func isOutputGlob(p string) bool {
	if strings.ContainsAny(p, "*?[") {
		return true
	}
	var open []int
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			open = append(open, i)
		case '}':
			if len(open) == 0 {
				continue
			}
			o := open[len(open)-1]
			open = open[:len(open)-1]
			if in := p[o:i]; strings.Contains(in, ",") || strings.Contains(in, "..") {
				return true
			}
		}
	}
	return false
}

// trackedTaskFiles returns the existing outputs of the artifact the
// change's schema tracks for apply (none when the schema cannot be read).
//
// scan, when not nil, is a walk of the change that answers the metadata and
// output look-ups.
func (r Root) trackedTaskFiles(change string, scan *changeScan) []string {
	var md changeMetadata
	outputs := func(g string) []string { return Outputs(r.ChangeDir(change), g) }
	if scan != nil {
		md, outputs = scan.metadata(), scan.outputs
	} else {
		md = readChangeMetadata(r.ChangeDir(change))
	}
	name, err := r.schemaName(change, md)
	if err != nil {
		return nil
	}
	s, err := r.LoadSchema(name)
	if err != nil {
		return nil
	}
	for _, a := range s.Artifacts {
		if (s.ApplyTracks != "" && a.Generates == s.ApplyTracks) || (s.ApplyTracks == "" && a.ID == "tasks") {
			return outputs(a.Generates)
		}
	}
	return nil
}

// TaskFiles returns the task files of a change: the outputs of the
// artifact its schema tracks for apply, or tasks.md.
func (r Root) TaskFiles(change string) []string { return r.taskFiles(change, nil) }

func (r Root) taskFiles(change string, s *changeScan) []string {
	if files := r.trackedTaskFiles(change, s); len(files) > 0 {
		return files
	}
	return []string{filepath.Join(r.ChangeDir(change), "tasks.md")}
}

// Progress counts the tasks of a change across its task files.
func (r Root) Progress(change string) (TaskProgress, error) { return r.progress(change, nil) }

func (r Root) progress(change string, s *changeScan) (TaskProgress, error) {
	var p TaskProgress
	for _, f := range r.taskFiles(change, s) {
		b, err := s.read(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return p, err
		}
		p = p.Add(tasksmd.CountTasks(string(b)))
	}
	return p, nil
}
