package plan

import (
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
)

// A backticked span that can be a path: no spaces, a dot or a slash, an
// optional line range ("src/a.go:10-40").
var pathSpanRe = lazyregexp.New(`^[A-Za-z0-9_./@+-]*[A-Za-z0-9_@+-][A-Za-z0-9_./@+-]*(?::[0-9][0-9,-]*)?$`)

// adHocFiles finds the files an ad-hoc task names, in this order of
// preference: file lists and role lines as a plan writes them ("Files:
// a.txt", "**Files:**" with a list, "Modify: `b.txt`", "- Create: c.go"),
// else every backticked span that reads as a path ("fix `src/a.go`").
// Backticked spans that are not paths (`go test ./...`) are skipped.
func adHocFiles(text string) ([]PlanFile, []PlanLine, error) {
	lines := strings.Split(text, "\n")
	mask := fenceMask(lines)
	files, unread, err := parseFiles(lines, mask, 0, len(lines))
	if err != nil {
		return nil, nil, err
	}
	for i, l := range lines {
		if mask[i] {
			continue
		}
		entry := strings.TrimSpace(l)
		if _, item, ok := listItem(l); ok {
			entry = item
		}
		word, rest, ok := strings.Cut(entry, ":")
		if !ok || strings.TrimSpace(rest) == "" {
			continue
		}
		if _, known := roleNames[strings.ToLower(strings.TrimSpace(word))]; !known {
			continue
		}
		fs, err := parseFileEntry(entry)
		if err != nil {
			return nil, nil, &PlanError{Line: i + 1, Msg: err.Error()}
		}
		for _, f := range fs {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	if len(files) > 0 {
		return files, unread, nil
	}
	for i, l := range lines {
		if mask[i] {
			continue
		}
		parts := strings.Split(l, "`")
		for k := 1; k < len(parts)-1; k += 2 {
			span := parts[k]
			if !pathSpanRe.MatchString(span) || !strings.ContainsAny(span, "./") || strings.Contains(span, "...") || strings.HasPrefix(span, "-") {
				continue
			}
			fs, err := parseFileEntry("`" + span + "`")
			if err != nil {
				continue // not a path in the repository: prose, not a file
			}
			for _, f := range fs {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	return files, unread, nil
}
