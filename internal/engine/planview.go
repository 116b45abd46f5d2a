package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/specstack/specstack/internal/plan"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/jjx"
)

// PlanTasks converts a plan's tasks for the
func PlanTasks(p *plan.Plan) []Task {
	ts := make([]Task, len(p.Tasks))
	for i, t := range p.Tasks {
		ts[i] = Task{Num: t.Number, Title: t.Title, Files: t.Paths()}
	}
	return ts
}

// PlanView is what `jj kaisen plan` reports.
type PlanView struct {
	Plan           string             `json:"plan"`
	Tasks          []PlanTaskView     `json:"tasks"`
	Waves          [][]int            `json:"waves"`
	Overlaps       []OverlapView      `json:"overlaps"`
	Largest        int                `json:"largest_wave"`
	Total          int                `json:"total_tasks"`
	Parallelism    float64            `json:"parallelism"`
	LowParallelism bool               `json:"low_parallelism"`
	Findings       []plan.PlanFinding `json:"findings"`
	// BaseChecked is false when no jj repository was at hand to check
	// Modify: paths against.
	BaseChecked bool `json:"base_checked"`
}

// PlanTaskView is one task of a PlanView.
type PlanTaskView struct {
	Number int             `json:"number"`
	Title  string          `json:"title"`
	Wave   int             `json:"wave"`
	Files  []plan.PlanFile `json:"files"`
}

// OverlapView is one edge of the overlap graph.
type OverlapView struct {
	Overlap
	Text string `json:"text"`
}

// NeedsDecision reports whether running the plan needs a person's yes:
// tasks overlap, too few of them run in parallel, or a pre-flight finding
// says the plan may not be what its author meant (Blocking).
func (v *PlanView) NeedsDecision() bool {
	return len(v.Overlaps) > 0 || v.LowParallelism || v.blockingCount() > 0
}

// Why says why the plan needs a decision, for the message that asks for
// --yes.
func (v *PlanView) Why() string {
	var why []string
	if len(v.Overlaps) > 0 {
		why = append(why, "tasks overlap")
	}
	if v.LowParallelism {
		why = append(why, "parallelism is low")
	}
	if n, kinds := v.blocking(); n > 0 {
		why = append(why, "the plan has "+plural.Count(n, "pre-flight finding", "pre-flight findings")+" ("+strings.Join(kinds, ", ")+")")
	}
	return strings.Join(why, "; ")
}

// blockingCount is how many findings are blocking.
func (v *PlanView) blockingCount() int { n, _ := v.blocking(); return n }

// blocking counts the blocking findings and lists their kinds, once each.
func (v *PlanView) blocking() (int, []string) {
	n := 0
	var kinds []string
	for _, f := range v.Findings {
		if f.Blocking() {
			n++
			kinds = appendUnique(kinds, f.Kind)
		}
	}
	return n, kinds
}

// BuildPlanView computes waves, overlaps, parallelism and the pre-flight
// findings. repo may be nil: then Modify: paths are not checked.
func BuildPlanView(ctx context.Context, p *plan.Plan, label string, repo *jjx.Repo) (*PlanView, error) {
	ts := PlanTasks(p)
	waves := Waves(ts)
	v := &PlanView{Plan: label, Waves: waves, Overlaps: []OverlapView{}, Findings: []plan.PlanFinding{}}
	waveOf := map[int]int{}
	for i, w := range waves {
		for _, n := range w {
			waveOf[n] = i + 1
		}
	}
	for _, t := range p.Tasks {
		files := t.Files
		if files == nil {
			files = []plan.PlanFile{}
		}
		v.Tasks = append(v.Tasks, PlanTaskView{Number: t.Number, Title: t.Title, Wave: waveOf[t.Number], Files: files})
	}
	for _, o := range Overlaps(ts) {
		v.Overlaps = append(v.Overlaps, OverlapView{Overlap: o, Text: o.String()})
	}
	v.Largest, v.Total, v.Parallelism = Parallelism(waves)
	v.LowParallelism = v.Total > 1 && v.Parallelism < LowParallelism

	var exists func(plan.PlanTask, string) bool
	modifies := false
	for _, t := range p.Tasks {
		for _, f := range t.Files {
			modifies = modifies || f.Role == plan.RoleModify
		}
	}
	if repo != nil && !modifies {
		v.BaseChecked = true // nothing to check
	}
	if repo != nil && modifies {
		// Wave 1 starts from @-, later waves from @ (where earlier waves
		// were squashed).
		below, err := fileSet(ctx, repo, "@-")
		if err != nil {
			return nil, err
		}
		at, err := fileSet(ctx, repo, "@")
		if err != nil {
			return nil, err
		}
		v.BaseChecked = true
		exists = func(t plan.PlanTask, path string) bool {
			if waveOf[t.Number] <= 1 {
				return below[path]
			}
			return at[path]
		}
	}
	if fs := p.Preflight(exists); fs != nil {
		v.Findings = fs
	}
	return v, nil
}

func fileSet(ctx context.Context, repo *jjx.Repo, rev string) (map[string]bool, error) {
	paths, err := repo.FileList(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("list files at %s: %w", rev, err)
	}
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return set, nil
}

// Text renders the view for people.
func (v *PlanView) Text(w io.Writer) error {
	var b strings.Builder
	files := map[int][]string{}
	for _, t := range v.Tasks {
		for _, f := range t.Files {
			files[t.Number] = appendUnique(files[t.Number], f.Path)
		}
	}
	fmt.Fprintf(&b, "plan: %s\n", v.Plan)
	if len(v.Overlaps) == 0 {
		if v.Total == 1 {
			b.WriteString("1 task: one wave.\n")
		} else {
			fmt.Fprintf(&b, "All %d tasks are independent: one wave.\n", v.Total)
		}
	} else {
		fmt.Fprintf(&b, "File overlaps: %s in %s.\n", plural.Count(v.Total, "task", "tasks"), plural.Count(len(v.Waves), "wave", "waves"))
	}
	for i, wave := range v.Waves {
		parts := make([]string, len(wave))
		for j, n := range wave {
			parts[j] = fmt.Sprintf("Task %d", n)
			if fs := files[n]; len(fs) > 0 {
				parts[j] += " (" + strings.Join(fs, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "Wave %d: %s\n", i+1, strings.Join(parts, ", "))
	}
	if len(v.Overlaps) > 0 {
		parts := make([]string, len(v.Overlaps))
		for i, o := range v.Overlaps {
			parts[i] = o.Text
		}
		fmt.Fprintf(&b, "Overlaps: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "Parallelism: %d/%d tasks in the largest wave (%.0f%%)\n", v.Largest, v.Total, v.Parallelism*100)
	if v.LowParallelism {
		fmt.Fprintf(&b, "warning: low parallelism: only %d/%d tasks can run in parallel; file overlaps make most tasks sequential, and the workspace, review and squash ceremony may cost more than it saves\n", v.Largest, v.Total)
	}
	if len(v.Findings) > 0 {
		b.WriteString("Pre-flight findings:\n")
		for _, f := range v.Findings {
			fmt.Fprintf(&b, "  - %s: %s\n", f.Kind, f.Message)
		}
	}
	if !v.BaseChecked {
		b.WriteString("note: not in a jj repository, Modify: paths were not checked\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
