package plan

import (
	"fmt"
	"sort"

	"github.com/specstack/specstack/internal/plural"
)

// PlanFinding is one result of the mechanical pre-flight scan of a plan.
type PlanFinding struct {
	Kind    string `json:"kind"` // one of the Finding* constants
	Tasks   []int  `json:"tasks"`
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"` // the plan line it is about (unread-files)
	Message string `json:"message"`
}

// Pre-flight finding kinds.
const (
	FindingDoubleCreate  = "double-create"  // two tasks both create one file
	FindingNoFiles       = "no-files"       // a task names no files
	FindingMissingModify = "missing-modify" // a Modify: path does not exist at the base
	FindingUnreadFiles   = "unread-files"   // a line that looks like a file list names no file
	FindingNearHeading   = "near-heading"   // a line that looks like a task heading is not one
)

// Blocking reports whether a finding of this kind needs a person's yes
// before a run: the plan may not say what its author meant (a task lost
// in another's text, a task whose files are unknown).
func (f PlanFinding) Blocking() bool {
	switch f.Kind {
	case FindingNearHeading, FindingNoFiles, FindingUnreadFiles:
		return true
	}
	return false
}

// FileForms lists the ways a plan task names its files.
const FileForms = `"Files: a.txt, b.txt" on one line (or "**Files:** a.txt, b.txt"), or a "**Files:**" line followed by list items such as "- Create: path", "- Modify: path:10-40", "- Test: path" or "- path" (paths may be backticked)`

// AdHocFileForms lists the ways an ad-hoc task names its files.
const AdHocFileForms = "backticked paths in the task text, as in \"fix the bug in `src/a.go`\", or a line \"Modify: src/a.go\" (also Create:, Test:, Delete:, Files:)"

// Preflight scans the plan mechanically. exists reports whether path is
// present in the tree task will start from; a path an earlier task
// creates counts as present.
func (p *Plan) Preflight(exists func(t PlanTask, path string) bool) []PlanFinding {
	var res []PlanFinding
	for _, h := range p.NearHeadings {
		res = append(res, PlanFinding{Kind: FindingNearHeading, Tasks: []int{}, Line: h.Line,
			Message: fmt.Sprintf("line %d: %q looks like a task heading but is not read as one, so no task runs its section (a typo?); write \"### Task N: title\" (## to ######)", h.Line, h.Text)})
	}
	creators := map[string][]int{}
	var created []string
	for _, t := range p.Tasks {
		forms := FileForms
		if p.AdHoc {
			forms = AdHocFileForms
		}
		for _, u := range t.Unread {
			res = append(res, PlanFinding{Kind: FindingUnreadFiles, Tasks: []int{t.Number}, Line: u.Line,
				Message: fmt.Sprintf("task %d, line %d: %q names no file that can be read; write %s", t.Number, u.Line, u.Text, forms)})
		}
		if len(t.Files) == 0 {
			how := "; name them with " + forms
			if len(t.Unread) > 0 {
				how = " (see the unread line above)"
			}
			res = append(res, PlanFinding{Kind: FindingNoFiles, Tasks: []int{t.Number},
				Message: fmt.Sprintf("task %d names no files: its overlaps cannot be known, so it may run beside a task that edits the same files%s", t.Number, how)})
		}
		for _, f := range t.Files {
			switch f.Role {
			case RoleCreate:
				if len(creators[f.Path]) == 0 {
					created = append(created, f.Path)
				}
				creators[f.Path] = append(creators[f.Path], t.Number)
			case RoleModify:
				if len(creators[f.Path]) == 0 && exists != nil && !exists(t, f.Path) {
					res = append(res, PlanFinding{Kind: FindingMissingModify, Tasks: []int{t.Number}, Path: f.Path,
						Message: fmt.Sprintf("task %d modifies %s, which does not exist at the base and no earlier task creates it", t.Number, f.Path)})
				}
			}
		}
	}
	sort.Strings(created)
	for _, path := range created {
		if ts := creators[path]; len(ts) > 1 {
			res = append(res, PlanFinding{Kind: FindingDoubleCreate, Tasks: ts, Path: path,
				Message: fmt.Sprintf("tasks %s %s create %s: only one can; make the others Modify it", plural.Ints(ts), plural.All(len(ts)), path)})
		}
	}
	return res
}
