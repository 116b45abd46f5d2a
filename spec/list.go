package spec

import (
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
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
	// and the schema files once for all of them. A few workers take the
	// changes in turn: one goroutine per change paid for a fresh stack
	// and its growth each.
	m := r.memoized()
	out := make([]ChangeSummary, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(listWorkers, len(names)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(names) {
					return
				}
				out[i], errs[i] = m.summarize(names[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in name order, as read one by one
		}
	}
	if byName {
		SortLocale(out, func(c ChangeSummary) string { return c.Name })
	} else {
		sort.SliceStable(out, func(i, j int) bool { return out[i].LastModified.After(out[j].LastModified) })
	}
	return out, nil
}

// listWorkers bounds how many changes ListChanges reads at once.
const listWorkers = 8

// summarize reads one change from a single walk of its directory (see
// changeScan); it answers as Progress, lastModified and NestedChanges do.
func (r Root) summarize(n string) (ChangeSummary, error) {
	s, err := scanChange(r.ChangeDir(n))
	if err != nil {
		return ChangeSummary{}, err
	}
	if s.links { // read nothing through a link out of the repository
		if err := r.checkTree(s.dir); err != nil {
			return ChangeSummary{}, err
		}
	}
	p, err := r.progress(n, s)
	if err != nil {
		return ChangeSummary{}, err
	}
	lm := s.latest
	if lm.IsZero() {
		fi, err := os.Stat(s.dir)
		if err != nil {
			return ChangeSummary{}, fmt.Errorf("stat %q: %w", s.dir, err)
		}
		lm = fi.ModTime()
	}
	var nested []string
	if !s.hasMarkerFile() { // else it is a change: NestedChanges would say nil
		nested = r.NestedChanges(n)
	}
	return ChangeSummary{Name: n, CompletedTasks: p.Completed, TotalTasks: p.Total, LastModified: jsDate(lm), Status: status(p), Nested: nested}, nil
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

// ListSpecs summarises the main specs, sorted by id. A spec.md that is
// not a regular file (a directory, a FIFO) is skipped, never opened, as
// OpenSpec 1.13.2's list skips it.
func (r Root) ListSpecs() ([]SpecSummary, error) {
	files, err := discoverSpecs(r.SpecsDir(), false)
	if err != nil {
		return nil, err
	}
	out := make([]SpecSummary, 0, len(files))
	for _, f := range files {
		s := SpecSummary{ID: f.ID}
		b, err := r.ReadText(f.Path)
		if err != nil {
			return nil, err
		}
		if sp, err := ParseSpec(f.ID, string(b)); err == nil {
			s.RequirementCount = len(sp.Requirements)
		}
		out = append(out, s)
	}
	SortLocale(out, func(s SpecSummary) string { return s.ID })
	return out, nil
}
