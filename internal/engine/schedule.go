package engine

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Task is a unit of work for one worker in one workspace.
type Task struct {
	Num   int      `json:"task" toml:"num"`
	Title string   `json:"title" toml:"title"`
	Files []string `json:"files" toml:"files"` // paths it declares it touches
	// Deps are tasks that must be integrated before this one starts
	// (frontier scheduling); waves ignore them beyond plan order.
	Deps []int `json:"deps,omitempty" toml:"deps,omitempty"`
}

// Overlap is an edge of the overlap graph: two tasks sharing files.
type Overlap struct {
	A     int      `json:"a"`
	B     int      `json:"b"`
	Files []string `json:"files"`
}

// String renders the overlap as "1↔3 (a.ts, b.ts)".
func (o Overlap) String() string {
	var b strings.Builder
	b.Grow(16 + 24*len(o.Files))
	b.WriteString(strconv.Itoa(o.A))
	b.WriteString("↔")
	b.WriteString(strconv.Itoa(o.B))
	b.WriteString(" (")
	for i, f := range o.Files {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f)
	}
	b.WriteString(")")
	return b.String()
}

// Waves assigns each task, in order, to the earliest wave after the
// waves of every earlier task it overlaps (shares a file with or depends
// on). Overlapping tasks therefore never share a wave and always run in
// plan order. The result lists task numbers per wave, in plan order.
func Waves(tasks []Task) [][]int {
	last := map[string]int{} // file -> latest wave (1-based) touching it
	waveOf := map[int]int{}
	var waves [][]int
	for _, t := range tasks {
		w := 1
		for _, f := range t.Files {
			if lw := last[f]; lw >= w {
				w = lw + 1
			}
		}
		for _, d := range t.Deps {
			if dw, ok := waveOf[d]; ok && dw >= w {
				w = dw + 1
			}
		}
		for _, f := range t.Files {
			if last[f] < w {
				last[f] = w
			}
		}
		waveOf[t.Num] = w
		for len(waves) < w {
			waves = append(waves, nil)
		}
		waves[w-1] = append(waves[w-1], t.Num)
	}
	return waves
}

// Overlaps returns the overlap graph's edges, ordered by task pair, each
// with the shared files sorted.
func Overlaps(tasks []Task) []Overlap {
	byFile := make(map[string][]int, len(tasks)) // file -> indices into tasks
	for i, t := range tasks {
		for _, f := range t.Files {
			if ts := byFile[f]; len(ts) == 0 || ts[len(ts)-1] != i {
				byFile[f] = append(ts, i)
			}
		}
	}
	// Pairs are keyed by their indices (a<<32|b, a < b), so sorting the
	// keys sorts the edges by plan order.
	shared := make(map[uint64][]string, len(tasks)*4)
	for f, ts := range byFile {
		for x := 0; x < len(ts); x++ {
			for y := x + 1; y < len(ts); y++ {
				k := uint64(ts[x])<<32 | uint64(ts[y])
				shared[k] = append(shared[k], f)
			}
		}
	}
	keys := make([]uint64, 0, len(shared))
	for k := range shared {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	res := make([]Overlap, len(keys))
	for i, k := range keys {
		fs := shared[k]
		if len(fs) > 1 {
			sort.Strings(fs)
		}
		res[i] = Overlap{A: tasks[k>>32].Num, B: tasks[k&0xffffffff].Num, Files: fs}
	}
	return res
}

// Parallelism is the share of tasks that run at once in the largest wave.
func Parallelism(waves [][]int) (largest, total int, ratio float64) {
	for _, w := range waves {
		total += len(w)
		largest = max(largest, len(w))
	}
	if total == 0 {
		return 0, 0, 1
	}
	return largest, total, float64(largest) / float64(total)
}

// LowParallelism is the ratio under which a plan is worth a warning: the
// ceremony of workspaces, review and squash may cost more than it saves.
const LowParallelism = 0.4

// Frontier returns the tasks whose dependencies are all in done, that are
// not done themselves and not in running, in plan order (gh-specstack's
// scheduling: start whatever is ready).
func Frontier(tasks []Task, done, running map[int]bool) []Task {
	var res []Task
	for _, t := range tasks {
		if done[t.Num] || running[t.Num] {
			continue
		}
		ready := true
		for _, d := range t.Deps {
			if !done[d] {
				ready = false
				break
			}
		}
		if ready {
			res = append(res, t)
		}
	}
	return res
}
