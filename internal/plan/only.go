package plan

import "slices"

// Only is p with just the tasks numbered nums, in the plan's order (a
// run of some of a plan's tasks, such as those a finished run did not
// merge). The preamble stays; p is not changed.
func (p *Plan) Only(nums []int) *Plan {
	q := *p
	q.Tasks = nil
	for _, t := range p.Tasks {
		if slices.Contains(nums, t.Number) {
			q.Tasks = append(q.Tasks, t)
		}
	}
	return &q
}
