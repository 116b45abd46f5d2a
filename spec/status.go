package spec

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ArtifactStatus is one artifact of a change's schema, present or not.
type ArtifactStatus struct {
	ID        string   `json:"id"`
	Generates string   `json:"generates"`
	Done      bool     `json:"done"`
	Skipped   bool     `json:"skipped,omitempty"` // counted done because the change declares skip_specs
	Files     []string `json:"files,omitempty"`   // relative to the change directory
	Requires  []string `json:"requires,omitempty"`
	Blocked   []string `json:"blocked_by,omitempty"` // required artifacts not done yet
}

// SkippedEmpty is OpenSpec's "skipped": an artifact skip_specs counts
// done that has no files (with files it is simply done).
func (a ArtifactStatus) SkippedEmpty() bool { return a.Skipped && len(a.Files) == 0 }

// ChangeStatus is what a change has and what apply still needs.
type ChangeStatus struct {
	Change     string           `json:"change"`
	Schema     string           `json:"schema"`
	Source     string           `json:"schema_source"`
	Artifacts  []ArtifactStatus `json:"artifacts"`
	ApplyReady bool             `json:"apply_ready"`
	Why        []string         `json:"why"` // why apply is (not) ready
	Tasks      TaskProgress     `json:"tasks"`
	SkipSpecs  bool             `json:"skip_specs,omitempty"`
}

// Status reads a change's artifacts against its schema (its
// .openspec.yaml, openspec/config.yaml, or the built-in spec-driven; a
// project schema under openspec/schemas/ wins) and decides whether it is
// ready to apply: every artifact the schema's apply step requires exists.
func (r Root) Status(change string) (ChangeStatus, error) {
	if err := r.CheckChange(change); err != nil {
		return ChangeStatus{}, err
	}
	if err := r.checkTree(r.ChangeDir(change)); err != nil {
		return ChangeStatus{}, err // nothing is read through a link out of the repository
	}
	if nested := r.NestedChanges(change); nested != nil {
		return ChangeStatus{}, fmt.Errorf("%s (%w)", DescribeNested(change, nested), ErrInvalid)
	}
	name, err := r.SchemaName(change)
	if err != nil {
		return ChangeStatus{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	s, err := r.LoadSchema(name)
	if err != nil {
		return ChangeStatus{}, fmt.Errorf("change %q: %w", change, err)
	}
	dir := r.ChangeDir(change)
	st := ChangeStatus{Change: change, Schema: s.Name, Source: s.Source, SkipSpecs: r.skipSpecsMarker(change).declared}
	done := map[string]bool{}
	for _, a := range s.Artifacts {
		as := ArtifactStatus{ID: a.ID, Generates: a.Generates, Requires: a.Requires}
		for _, f := range Outputs(dir, a.Generates) {
			rel, _ := filepath.Rel(dir, f)
			as.Files = append(as.Files, filepath.ToSlash(rel))
		}
		as.Skipped = st.SkipSpecs && strings.HasPrefix(path.Clean(strings.ReplaceAll(a.Generates, `\`, "/")), "specs/")
		as.Done = len(as.Files) > 0 || as.Skipped
		done[a.ID] = as.Done
		st.Artifacts = append(st.Artifacts, as)
	}
	for i := range st.Artifacts {
		for _, req := range st.Artifacts[i].Requires {
			if !done[req] {
				st.Artifacts[i].Blocked = append(st.Artifacts[i].Blocked, req)
			}
		}
	}
	var missing []string
	for _, req := range s.ApplyRequires {
		if !done[req] {
			missing = append(missing, req)
		}
	}
	st.Tasks, err = r.Progress(change)
	if err != nil {
		return st, err
	}
	st.ApplyReady = len(missing) == 0
	if st.ApplyReady {
		st.Why = append(st.Why, fmt.Sprintf("every artifact apply requires is present (%s)", strings.Join(s.ApplyRequires, ", ")))
	} else {
		for _, m := range missing {
			gen := ""
			for _, a := range s.Artifacts {
				if a.ID == m {
					gen = a.Generates
				}
			}
			st.Why = append(st.Why, fmt.Sprintf("apply requires %q (%s), which is missing", m, gen))
		}
	}
	return st, nil
}

// BuildOrder is OpenSpec's ArtifactGraph.getBuildOrder of a change's
// artifacts: a topological order, ties (and the waiting queue) in
// declaration order.
func BuildOrder(arts []ArtifactStatus) []string {
	decl := map[string]int{}
	indeg := map[string]int{}
	dependents := map[string][]string{}
	for i, a := range arts {
		decl[a.ID] = i
		indeg[a.ID] = len(a.Requires)
		for _, req := range a.Requires {
			dependents[req] = append(dependents[req], a.ID)
		}
	}
	var queue, out []string
	for _, a := range arts {
		if indeg[a.ID] == 0 {
			queue = append(queue, a.ID)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		out = append(out, cur)
		for _, dep := range dependents[cur] {
			indeg[dep]--
			if indeg[dep] == 0 {
				queue = append(queue, dep)
			}
		}
		sort.SliceStable(queue, func(i, j int) bool { return decl[queue[i]] < decl[queue[j]] })
	}
	return out
}
