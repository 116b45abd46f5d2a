package spec

import "github.com/specstack/specstack/internal/linediff"

// UnifiedDiff renders the change from old to new as a unified diff with
// three lines of context, labelled a/<name> and b/<name> (/dev/null for a
// missing side). It returns "" when the texts are equal.
func UnifiedDiff(name, old, new string, oldExists bool) string {
	if old == new && oldExists {
		return ""
	}
	from := "a/" + name
	if !oldExists {
		from = "/dev/null"
	}
	return linediff.Unified(from, "b/"+name, old, new)
}
