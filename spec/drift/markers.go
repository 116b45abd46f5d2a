package drift

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/conflict"
	"github.com/specstack/specstack/spec"
)

// MarkerIssues lists the unresolved conflict markers in the Markdown and
// YAML files of change (a rebase that conflicted writes them), one ERROR
// per hunk with its file and line; the change does not validate until
// they are gone.
func MarkerIssues(r spec.Root, change string) ([]spec.Issue, error) {
	dir := r.ChangeDir(change)
	var out []spec.Issue
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || !(strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yaml")) {
			return nil
		}
		raw, err := r.ReadFile(p) // nothing through a link out (not read, not reported)
		if err != nil {
			return nil
		}
		if !strings.Contains(string(raw), "<<<<<<<") {
			return nil
		}
		rel, _ := filepath.Rel(r.Dir, p)
		rel = filepath.ToSlash(rel)
		lines := strings.Split(string(raw), "\n")
		var fenced []bool
		if strings.HasSuffix(p, ".md") {
			fenced = spec.FenceMask(lines)
		}
		for _, h := range conflict.Parse(raw).Hunks {
			if i := h.StartLine - 1; i >= 0 && i < len(fenced) && fenced[i] && !jjMarker(lines[i]) {
				continue // an example in a code block (a design's), not a conflict
			}
			out = append(out, spec.Issue{Level: spec.LevelError, Path: rel, Line: h.StartLine,
				Message: fmt.Sprintf("unresolved conflict markers (lines %d-%d, %d sides): keep one side with `jj openspec resolve --strategy ours|theirs %s`, or edit the file", h.StartLine, h.EndLine, len(h.Sides), rel)})
		}
		return nil
	})
	return out, err
}

// jjMarker reports whether line opens a conflict as jj writes one
// ("<<<<<<< conflict 1 of 2"; longer runs when the file holds marker-like
// lines already): inside a fenced code block only those count, where
// bare git-style markers are an example someone wrote.
func jjMarker(line string) bool {
	rest := strings.TrimLeft(line, "<")
	return len(line)-len(rest) >= 7 && strings.HasPrefix(strings.ToLower(rest), " conflict ")
}
