package engine

import (
	"fmt"
	"reflect"
	"testing"
)

func tasksOf(files ...[]string) []Task {
	ts := make([]Task, len(files))
	for i, f := range files {
		ts[i] = Task{Num: i + 1, Files: f}
	}
	return ts
}

func TestWaves(t *testing.T) {
	tests := []struct {
		name  string
		tasks []Task
		want  [][]int
	}{
		{
			// The reference example; plain greedy would put 3 and 5 in one
			// wave although they share d.ts.
			name:  "reference example",
			tasks: tasksOf([]string{"a", "b"}, []string{"c"}, []string{"a", "d"}, []string{"e"}, []string{"d", "e"}),
			want:  [][]int{{1, 2, 4}, {3}, {5}},
		},
		{
			// Plain greedy would run 3 in wave 1, before 2 which shares x.
			name:  "plan order kept between overlapping tasks",
			tasks: tasksOf([]string{"a"}, []string{"a", "x"}, []string{"x"}),
			want:  [][]int{{1}, {2}, {3}},
		},
		{
			name:  "independent",
			tasks: tasksOf([]string{"a"}, []string{"b"}, nil),
			want:  [][]int{{1, 2, 3}},
		},
		{
			name:  "chain",
			tasks: tasksOf([]string{"a"}, []string{"a"}, []string{"a"}),
			want:  [][]int{{1}, {2}, {3}},
		},
		{
			name:  "dependencies",
			tasks: []Task{{Num: 1}, {Num: 2, Deps: []int{1}}, {Num: 3}, {Num: 4, Deps: []int{2, 3}}},
			want:  [][]int{{1, 3}, {2}, {4}},
		},
		{name: "none", tasks: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Waves(tt.tasks); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Waves = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOverlaps(t *testing.T) {
	ts := tasksOf([]string{"a.ts", "b.ts"}, []string{"c.ts"}, []string{"a.ts", "d.ts", "b.ts"}, []string{"e.ts"}, []string{"d.ts", "e.ts"})
	var got []string
	for _, o := range Overlaps(ts) {
		got = append(got, o.String())
	}
	want := []string{"1↔3 (a.ts, b.ts)", "3↔5 (d.ts)", "4↔5 (e.ts)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Overlaps = %q, want %q", got, want)
	}
}

func TestParallelism(t *testing.T) {
	l, n, r := Parallelism([][]int{{1, 2, 4}, {3}, {5}})
	if l != 3 || n != 5 || r != 0.6 {
		t.Errorf("got %d/%d %v", l, n, r)
	}
	if _, _, r := Parallelism([][]int{{1}, {2}, {3}}); r >= LowParallelism {
		t.Errorf("a chain of 3 has ratio %v, want under %v", r, LowParallelism)
	}
}

func TestFrontier(t *testing.T) {
	ts := []Task{{Num: 1}, {Num: 2, Deps: []int{1}}, {Num: 3}, {Num: 4, Deps: []int{2, 3}}}
	nums := func(ts []Task) []int {
		var r []int
		for _, t := range ts {
			r = append(r, t.Num)
		}
		return r
	}
	if got := nums(Frontier(ts, nil, nil)); !reflect.DeepEqual(got, []int{1, 3}) {
		t.Errorf("start: %v", got)
	}
	if got := nums(Frontier(ts, map[int]bool{1: true}, map[int]bool{3: true})); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("after 1, 3 running: %v", got)
	}
	if got := nums(Frontier(ts, map[int]bool{1: true, 2: true, 3: true}, nil)); !reflect.DeepEqual(got, []int{4}) {
		t.Errorf("after 1-3: %v", got)
	}
}

// BenchmarkPlan2000 schedules 2,000 tasks of 10 files each (the issue's
// target: under 50 ms for waves and overlaps).
func BenchmarkPlan2000(b *testing.B) {
	ts := make([]Task, 2000)
	for i := range ts {
		files := make([]string, 10)
		for j := range files {
			// Each file is shared by a handful of tasks: realistic overlap.
			files[j] = fmt.Sprintf("pkg%d/file%d.go", (i*7+j*13)%300, j)
		}
		ts[i] = Task{Num: i + 1, Files: files}
	}
	for b.Loop() {
		_ = Waves(ts)
		_ = Overlaps(ts)
	}
}
