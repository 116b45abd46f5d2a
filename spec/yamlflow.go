package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// flowCollection reads s, a flow sequence or mapping on one line
// ("[a, 'b, c']", "{}", "{guidance: [x]}"), as YAML reads it: plain
// scalars end at a comma, a bracket, a brace or ": ", and are typed as
// yamlScalar types them; quoted scalars may hold any of those.
func flowCollection(s string, num int) (any, error) {
	f := flowScanner{s: s, num: num}
	v, err := f.value()
	if err != nil {
		return nil, err
	}
	if f.skip(); f.i < len(f.s) {
		return nil, fmt.Errorf("line %d: unexpected %q after a flow collection", num, f.s[f.i:])
	}
	return v, nil
}

type flowScanner struct {
	s   string
	i   int
	num int
}

func (f *flowScanner) skip() {
	for f.i < len(f.s) && (f.s[f.i] == ' ' || f.s[f.i] == '\t') {
		f.i++
	}
}

func (f *flowScanner) fail(what string) error {
	return fmt.Errorf("line %d: %s in flow collection %q", f.num, what, f.s)
}

func (f *flowScanner) value() (any, error) {
	f.skip()
	if f.i >= len(f.s) {
		return nil, f.fail("unterminated")
	}
	switch f.s[f.i] {
	case '[':
		return f.sequence()
	case '{':
		return f.mapping()
	case '\'', '"':
		return f.quoted()
	}
	start := f.i
	for f.i < len(f.s) {
		c := f.s[f.i]
		if c == ',' || c == ']' || c == '}' || c == '[' || c == '{' ||
			(c == ':' && (f.i+1 == len(f.s) || strings.ContainsRune(" ,]}", rune(f.s[f.i+1])))) {
			break
		}
		f.i++
	}
	return yamlScalar(strings.TrimSpace(f.s[start:f.i]), f.num)
}

// quoted reads a single- or double-quoted scalar at f.i.
func (f *flowScanner) quoted() (any, error) {
	q, start := f.s[f.i], f.i
	for f.i++; f.i < len(f.s); f.i++ {
		switch {
		case q == '"' && f.s[f.i] == '\\':
			f.i++
		case f.s[f.i] == q && q == '\'' && f.i+1 < len(f.s) && f.s[f.i+1] == '\'':
			f.i++
		case f.s[f.i] == q:
			f.i++
			return yamlScalar(f.s[start:f.i], f.num)
		}
	}
	return nil, fmt.Errorf("line %d: unterminated string", f.num)
}

func (f *flowScanner) sequence() (any, error) {
	f.i++ // [
	out := []any{}
	for {
		if f.skip(); f.i < len(f.s) && f.s[f.i] == ']' {
			f.i++
			return out, nil
		}
		v, err := f.value()
		if err != nil {
			return nil, err
		}
		if f.skip(); f.i < len(f.s) && f.s[f.i] == ':' {
			return nil, f.fail("a mapping entry")
		}
		out = append(out, v)
		if err := f.next(']'); err != nil {
			return nil, err
		}
	}
}

func (f *flowScanner) mapping() (any, error) {
	f.i++ // {
	out := map[string]any{}
	for {
		if f.skip(); f.i < len(f.s) && f.s[f.i] == '}' {
			f.i++
			return out, nil
		}
		k, err := f.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, f.fail("a key that is not text")
		}
		var v any
		if f.skip(); f.i < len(f.s) && f.s[f.i] == ':' {
			f.i++
			if f.skip(); f.i < len(f.s) && f.s[f.i] != ',' && f.s[f.i] != '}' {
				if v, err = f.value(); err != nil {
					return nil, err
				}
			}
		}
		if _, dup := out[key]; dup {
			return nil, f.fail("a duplicate key " + strconv.Quote(key))
		}
		out[key] = v
		if err := f.next('}'); err != nil {
			return nil, err
		}
	}
}

// next steps over the comma after an entry, or stops before the closing
// bracket or brace.
func (f *flowScanner) next(closing byte) error {
	f.skip()
	switch {
	case f.i >= len(f.s):
		return f.fail("unterminated")
	case f.s[f.i] == ',':
		f.i++
	case f.s[f.i] != closing:
		return f.fail("unexpected " + strconv.Quote(f.s[f.i:f.i+1]))
	}
	return nil
}
