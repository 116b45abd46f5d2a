package plan

import "testing"

func TestOnly(t *testing.T) {
	p := &Plan{Preamble: "pre", Tasks: []PlanTask{{Number: 1}, {Number: 2}, {Number: 3}}}
	q := p.Only([]int{3, 1})
	if len(q.Tasks) != 2 || q.Tasks[0].Number != 1 || q.Tasks[1].Number != 3 || q.Preamble != "pre" {
		t.Errorf("Only(3,1) = %+v, want tasks 1 and 3 in the plan's order, the preamble kept", q)
	}
	if len(p.Tasks) != 3 {
		t.Errorf("Only changed the plan: %+v", p.Tasks)
	}
}
