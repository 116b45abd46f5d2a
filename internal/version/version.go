// Package version parses and compares dotted tool versions ("0.46.0",
// "jj 0.46.0-abc", "2.39.5").
package version

import (
	"fmt"
	"strconv"
	"strings"
)

// V is a parsed version.
type V struct {
	Major, Minor, Patch int
	Raw                 string
}

func (v V) String() string { return v.Raw }

// Less reports whether v is older than w.
func (v V) Less(w V) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// AtLeast reports whether v >= min (a dotted string).
func (v V) AtLeast(min string) bool {
	m, err := Parse(min)
	return err == nil && !v.Less(m)
}

// Parse reads a version, ignoring a leading program name and any suffix
// after '-', '+' or a space.
func Parse(s string) (V, error) {
	s = strings.TrimSpace(s)
	if f := strings.Fields(s); len(f) > 1 {
		s = f[len(f)-1]
		for _, x := range f {
			if len(x) > 0 && x[0] >= '0' && x[0] <= '9' {
				s = x
				break
			}
		}
	}
	raw := s
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return V{}, fmt.Errorf("parse version %q", raw)
	}
	var n [3]int
	for i := 0; i < len(parts) && i < 3; i++ {
		x, err := strconv.Atoi(parts[i])
		if err != nil {
			return V{}, fmt.Errorf("parse version %q", raw)
		}
		n[i] = x
	}
	return V{Major: n[0], Minor: n[1], Patch: n[2], Raw: raw}, nil
}

// ToolError is a tool on PATH that cannot be used: its version could not
// be read (Err says why), or it is older than the oldest supported.
type ToolError struct {
	Tool    string // "jj", "git"
	Bin     string // the executable
	Version string // its version; "" when unread
	Hint    string // how to get a supported one
	Err     error  // why the version could not be read; nil when too old
}

func (e *ToolError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s %s at %s is too old: %s", e.Tool, e.Version, e.Bin, e.Hint)
}

func (e *ToolError) Unwrap() error { return e.Err }
