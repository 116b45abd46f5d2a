package spec

import "sync"

// schemaMemo remembers, for one operation over many changes, the schema
// openspec/config.yaml names and the schemas loaded, so that listing N
// changes reads those files once instead of N times. It lives as long as
// the operation (see Root.memoized), so an edit between two commands is
// always seen. Safe for concurrent use.
type schemaMemo struct {
	mu      sync.Mutex
	config  *loadedConfig
	schemas map[string]loadedSchema
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
	r.memo = &schemaMemo{schemas: map[string]loadedSchema{}}
	return r
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
