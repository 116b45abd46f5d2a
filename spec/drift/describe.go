package drift

import (
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/plural"
)

// Describe is a finding for a person: one line, then what moved
// it, the preview and the fix, indented.
func Describe(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s %q (%s): %s\n", f.Kind, f.Change, f.Capability, f.Requirement, f.Op, f.Detail)
	if f.MovedBy != nil {
		id := f.MovedBy.ID
		if f.MovedBy.ChangeID != "" {
			id = f.MovedBy.ChangeID
		}
		if len(id) > 12 {
			id = id[:12]
		}
		fmt.Fprintf(&b, "  moved by %s %q", id, f.MovedBy.Summary)
		if f.ArchivedBy != "" {
			fmt.Fprintf(&b, " (archived change %s)", f.ArchivedBy)
		}
		b.WriteString("\n")
	} else if f.ArchivedBy != "" {
		fmt.Fprintf(&b, "  moved by archived change %s\n", f.ArchivedBy)
	}
	if f.Preview != "" {
		verdict := "merges cleanly"
		if f.Conflicts > 0 {
			verdict = plural.Count(f.Conflicts, "conflict", "conflicts") + " to resolve"
		}
		fmt.Fprintf(&b, "  `jj openspec rebase %s` would write (%s):\n", f.Change, verdict)
		for _, l := range strings.Split(f.Preview, "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}
