package spec

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A directory under openspec/changes/ that only wraps change directories
// ("changes/team-a/add-x/") is not a change: OpenSpec lists it as such,
// refuses to validate or archive it, and names the nested changes.

const maxNestingDepth = 3

// NestedChanges returns the change-like directories nested in the
// changes/ entry name when name itself is not a change, else nil.
func (r Root) NestedChanges(name string) []string {
	if name == "archive" || strings.HasPrefix(name, ".") {
		return nil
	}
	dir := r.ChangeDir(name)
	if r.looksLikeChange(dir) || hasOwnFile(dir) {
		return nil
	}
	var found []string
	r.collectNested(dir, name, 1, &found)
	sort.Strings(found)
	return found
}

func (r Root) collectNested(dir, prefix string, depth int, found *[]string) {
	if depth > maxNestingDepth {
		return
	}
	// This probe only adds a diagnostic: a directory that cannot be read
	// has no subdirectories, as in OpenSpec's readSubdirectories.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		child := filepath.Join(dir, e.Name())
		id := prefix + "/" + e.Name()
		if r.looksLikeChange(child) {
			*found = append(*found, id)
			continue
		}
		r.collectNested(child, id, depth+1, found)
	}
}

// changeMarkers are the files whose presence makes a directory a change.
var changeMarkers = []string{".openspec.yaml", "proposal.md", "tasks.md", "design.md"}

func (r Root) looksLikeChange(dir string) bool {
	for _, m := range changeMarkers {
		if fi, err := os.Stat(filepath.Join(dir, m)); err == nil && !fi.IsDir() {
			return true
		}
	}
	// Unreadable specs/ gives no signal (OpenSpec: .catch(() => false)),
	// nor does an unreadable config below (hasSchemaOutput's catch).
	if ok, _ := hasAnyFileUnder(filepath.Join(dir, "specs")); ok {
		return true
	}
	md := readChangeMetadata(dir)
	name := md.schema
	if md.invalid != "" {
		return false
	}
	if name == "" {
		c, _ := r.readProjectConfig()
		name = c.schema
	}
	if name == "" {
		name = "spec-driven"
	}
	s, err := r.LoadSchema(name)
	if err != nil {
		return false
	}
	for _, a := range s.Artifacts {
		if len(Outputs(dir, a.Generates)) > 0 {
			return true
		}
	}
	return false
}

func hasOwnFile(dir string) bool {
	entries, _ := os.ReadDir(dir) // unreadable: no own file, as OpenSpec's hasOwnFile
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && !e.IsDir() {
			return true
		}
	}
	return false
}

// DescribeNested is OpenSpec's message for a namespace folder.
func DescribeNested(name string, nested []string) string {
	list := make([]string, len(nested))
	for i, n := range nested {
		list[i] = "openspec/changes/" + n + "/"
	}
	return `"` + name + `" is not a change: it is a folder wrapping ` + strings.Join(list, ", ") + ". " +
		"A change must be a directory directly under openspec/changes/, so those " +
		"nested directories are invisible to OpenSpec while the folder around them " +
		"is reported as a change. Nested paths are supported under openspec/specs/ " +
		`only. Rename each nested change to a flat name (for example "` + strings.ReplaceAll(nested[0], "/", "-") + `").`
}
