package spec

import (
	"sync"

	"github.com/specstack/specstack/spec/internal/jstext"
)

// schemaMemo remembers, for one operation over many changes, the schema
// openspec/config.yaml names and the schemas loaded, so that listing N
// changes reads those files once instead of N times. It lives as long as
// the operation (see Root.memoized), so an edit between two commands is
// always seen. Safe for concurrent use.
//
// It also keeps the documents read through Root.readFile, so that one
// validation, which checks a delta spec and the main spec it rewrites in
// several passes, reads each file once.
type schemaMemo struct {
	mu      sync.Mutex
	config  *loadedConfig
	schemas map[string]loadedSchema
	files   map[string]loadedFile
}

type loadedFile struct {
	b   []byte
	err error
}

type loadedConfig struct {
	c   projectConfig
	err error
}

type loadedSchema struct {
	s   Schema
	err error
}

// memoized returns r remembering its schema lookups until it is dropped.
func (r Root) memoized() Root {
	r.memo = &schemaMemo{schemas: map[string]loadedSchema{}, files: map[string]loadedFile{}}
	return r
}

// readFile is ReadFile (nothing read through a symbolic link that leaves
// Bound), once per path for a memoized root. Callers must not modify the
// returned bytes.
func (r Root) readFile(path string) ([]byte, error) {
	if r.memo == nil {
		return r.ReadFile(path)
	}
	m := r.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[path]
	if !ok {
		f.b, f.err = r.ReadFile(path)
		m.files[path] = f
	}
	return f.b, f.err
}

// readText is readFile as text, as ReadText reads it.
func (r Root) readText(path string) ([]byte, error) {
	b, err := r.readFile(path)
	return jstext.Decode(b), err
}

func (m *schemaMemo) projectConfig(read func() (projectConfig, error)) (projectConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.config == nil {
		c, err := read()
		m.config = &loadedConfig{c, err}
	}
	return m.config.c, m.config.err
}

func (m *schemaMemo) schema(name string, load func(string) (Schema, error)) (Schema, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.schemas[name]
	if !ok {
		l.s, l.err = load(name)
		m.schemas[name] = l
	}
	return l.s, l.err
}

// WithFiles returns r reading each path of files (absolute, as r names
// them) as the bytes given, not what is on disk: a plan over rewrites not
// yet written, such as sync --dry-run's archive plan over the delta specs
// a merge would write. Other reads are memoized for as long as the
// returned root lives.
func (r Root) WithFiles(files map[string][]byte) Root {
	r = r.memoized()
	for p, b := range files {
		r.memo.files[p] = loadedFile{b: b}
	}
	return r
}
