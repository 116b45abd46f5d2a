package spec

import (
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/regfile"
)

// ChangeSummary is one change as `openspec list --json` reports it.
type ChangeSummary struct {
	Name           string    `json:"name"`
	CompletedTasks int       `json:"completedTasks"`
	TotalTasks     int       `json:"totalTasks"`
	LastModified   time.Time `json:"lastModified"`
	Status         string    `json:"status"`           // no-tasks, in-progress or complete
	Nested         []string  `json:"nested,omitempty"` // set when the entry is a folder wrapping changes, not a change
}

// ListChanges summarises the active changes, most recently modified first
// (byName: sorted by name). LastModified is the newest file's mtime
// rounded to the millisecond as OpenSpec reports it (see jsDate); changes
// modified in the same millisecond keep name order.
func (r Root) ListChanges(byName bool) ([]ChangeSummary, error) {
	names, err := r.ChangeNames()
	if err != nil {
		return nil, err
	}
	// The changes are read side by side (the work is file system calls)
	// and the schema files once for all of them.
	m := r.memoized()
	out := make([]ChangeSummary, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, listWorkers)
	var wg sync.WaitGroup
	for i, n := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i], errs[i] = m.summarize(n)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in name order, as read one by one
		}
	}
	if byName {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	} else {
		sort.SliceStable(out, func(i, j int) bool { return out[i].LastModified.After(out[j].LastModified) })
	}
	return out, nil
}

// listWorkers bounds how many changes ListChanges reads at once.
const listWorkers = 8

func (r Root) summarize(n string) (ChangeSummary, error) {
	p, err := r.Progress(n)
	if err != nil {
		return ChangeSummary{}, err
	}
	lm, err := lastModified(r.ChangeDir(n))
	if err != nil {
		return ChangeSummary{}, err
	}
	return ChangeSummary{Name: n, CompletedTasks: p.Completed, TotalTasks: p.Total, LastModified: jsDate(lm), Status: status(p), Nested: r.NestedChanges(n)}, nil
}

// jsDate is t as Node's fs.Stats presents it to OpenSpec: a Date made
// from mtimeMs (seconds × 1000 + nanoseconds / 1e6, a float64) rounded to
// the nearest millisecond, halves up (Math.round), in UTC. Truncating
// instead dates a change up to a millisecond early, which changes the
// order of changes modified within the same millisecond.
func jsDate(t time.Time) time.Time {
	ms := float64(t.Unix())*1000 + float64(t.Nanosecond())/1e6
	r := math.Floor(ms)
	if ms-r >= 0.5 {
		r++
	}
	return time.UnixMilli(int64(r)).UTC()
}

func status(p TaskProgress) string {
	switch {
	case p.Total == 0:
		return "no-tasks"
	case p.Completed == p.Total:
		return "complete"
	}
	return "in-progress"
}

// SpecSummary is one main spec as `openspec list --specs --json` reports it.
type SpecSummary struct {
	ID               string `json:"id"`
	RequirementCount int    `json:"requirementCount"`
}

// ListSpecs summarises the main specs, sorted by id.
func (r Root) ListSpecs() ([]SpecSummary, error) {
	files, err := DiscoverSpecs(r.SpecsDir())
	if err != nil {
		return nil, err
	}
	out := make([]SpecSummary, 0, len(files))
	for _, f := range files {
		s := SpecSummary{ID: f.ID}
		b, err := regfile.Read(f.Path)
		if err != nil {
			return nil, err
		}
		if sp, err := ParseSpec(f.ID, string(b)); err == nil {
			s.RequirementCount = len(sp.Requirements)
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].ID) < strings.ToLower(out[j].ID) })
	return out, nil
}
