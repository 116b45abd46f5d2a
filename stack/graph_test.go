package stack

import (
	"errors"
	"slices"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

func TestProseBlockers(t *testing.T) {
	tests := []struct {
		body string
		want []int
	}{
		{"## Blocked by\n- #12\n- #7 and #12\n\n## Next\n#99", []int{12, 7}},
		{"Blocked by: #3, #4", []int{3, 4}},
		{"**Blocked by:** #5", []int{5}},
		{"### Blocked by #8\ntext #9\n## Other\n#10", []int{8, 9}},
		{"## Blocked by\n- https://github.com/o/r/issues/21\n", []int{21}},
		{"Depends on #3 (not a blocked-by line)", nil},
		{"## Blocked by\nnothing&#39;s here", nil},
	}
	for _, tt := range tests {
		if got := ProseBlockers(tt.body); !slices.Equal(got, tt.want) {
			t.Errorf("ProseBlockers(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func layerNums(g *Graph) [][]int {
	var res [][]int
	for _, l := range g.Layers {
		var nums []int
		for _, t := range l.Tickets {
			nums = append(nums, t.Number)
		}
		res = append(res, nums)
	}
	return res
}

func TestBuildGraph(t *testing.T) {
	tk := func(n, pos int, human bool, blockers ...int) *Ticket {
		return &Ticket{Number: n, Position: pos, Human: human, BlockedBy: blockers}
	}
	g, err := BuildGraph([]*Ticket{
		tk(10, 0, false),
		tk(30, 1, false, 10),
		tk(20, 2, false, 10),
		tk(40, 3, false, 30, 20),
		tk(50, 4, true),
		tk(60, 5, false, 50),
		tk(70, 6, false, 60, 10),
		tk(15, 7, false),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{10, 15}, {30, 20}, {40}}
	if got := layerNums(g); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("layers = %v, want %v", got, want)
	}
	var ex []int
	for _, e := range g.Excluded {
		ex = append(ex, e.Number)
	}
	if !slices.Equal(ex, []int{50, 60, 70}) {
		t.Errorf("excluded = %v (%+v)", ex, g.Excluded)
	}
	if g.Excluded[2].Reason != "blocked by #60, which is excluded" {
		t.Errorf("reason = %q", g.Excluded[2].Reason)
	}
}

func TestBuildGraphTieBreak(t *testing.T) {
	g, err := BuildGraph([]*Ticket{
		{Number: 9, Position: 1},
		{Number: 8, Position: 1},
		{Number: 7, Position: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := layerNums(g); !slices.Equal(got[0], []int{7, 8, 9}) {
		t.Errorf("layer 1 = %v", got[0])
	}
}

func TestBuildGraphCycle(t *testing.T) {
	_, err := BuildGraph([]*Ticket{
		{Number: 1, BlockedBy: []int{}},
		{Number: 2, BlockedBy: []int{3}},
		{Number: 3, BlockedBy: []int{4}},
		{Number: 4, BlockedBy: []int{2}},
	})
	var ce *CycleError
	if !errors.As(err, &ce) || exitcode.Of(err) != exitcode.Invalid {
		t.Fatalf("err = %v, want a CycleError with exit code Invalid", err)
	}
	if !slices.Equal(ce.Cycle, []int{2, 3, 4, 2}) {
		t.Errorf("cycle = %v", ce.Cycle)
	}
	if want := "tickets block each other in a cycle: #2 → #3 → #4 → #2"; err.Error()[:len(want)] != want {
		t.Errorf("message = %q", err)
	}
}

func FuzzProseBlockers(f *testing.F) {
	f.Add("## Blocked by\n- #12\n## Next\n#99")
	f.Add("Blocked by: #3, https://github.com/o/r/issues/4")
	f.Fuzz(func(t *testing.T, body string) {
		seen := map[int]bool{}
		for _, n := range ProseBlockers(body) {
			if n <= 0 || seen[n] {
				t.Fatalf("ProseBlockers(%q) gave %d twice or non-positive", body, n)
			}
			seen[n] = true
		}
	})
}
