package stack

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// stackPlan is what registering the stack will do, decided before
// anything changes.
type stackPlan struct {
	stack     int // the existing stack holding the list's bottom; 0 for none
	keep      int // how many of the list's bottom layers it already holds
	unchanged bool
}

// planStack decides how the list (pull request numbers bottom first, 0
// for a pull request still to open) meets the existing stacks: a new
// stack, the list's top added on top of the stack that ends with the
// list's bottom, or nothing when the stack already holds the whole list
// in order. Any other shape is refused.
func planStack(stacks []ghapi.Stack, nums []int) (stackPlan, error) {
	var holding *ghapi.Stack
	for i := range stacks {
		for _, n := range nums {
			if n != 0 && slices.Contains(stacks[i].Numbers(), n) {
				if holding != nil && holding.Number != stacks[i].Number {
					return stackPlan{}, exitcode.New(exitcode.Failure, "the pull requests listed are in two stacks (%d and %d): take them out of one on GitHub first", holding.Number, stacks[i].Number)
				}
				holding = &stacks[i]
			}
		}
	}
	if holding == nil {
		return stackPlan{}, nil
	}
	have := holding.Numbers()
	p := stackPlan{stack: holding.Number}
	if i := slices.Index(have, nums[0]); nums[0] != 0 && i >= 0 && i+len(nums) <= len(have) && slices.Equal(have[i:i+len(nums)], nums) {
		p.unchanged = true
		return p, nil
	}
	for c := min(len(have), len(nums)); c > 0; c-- {
		if slices.Equal(have[len(have)-c:], nums[:c]) {
			p.keep = c
			break
		}
	}
	if p.keep == 0 || slices.ContainsFunc(nums[p.keep:], func(n int) bool { return n != 0 && slices.Contains(have, n) }) {
		return stackPlan{}, exitcode.New(exitcode.Failure,
			"stack %d holds %s, which the list %s does not extend on top: list the stack's top pull requests first, then the new ones; nothing was changed",
			holding.Number, numRefs(have), listRefs(nums))
	}
	return p, nil
}

// apply registers the stack once every layer has its pull request.
func (p stackPlan) apply(ctx context.Context, gh *ghapi.Client, nums []int, res *LinkResult, progress io.Writer) error {
	switch {
	case p.stack == 0 && len(nums) < 2:
		res.Notes = append(res.Notes, "a single pull request is never registered as a stack: link two or more")
		return nil
	case p.stack == 0:
		s, err := gh.CreateStack(ctx, nums)
		if err != nil {
			return fmt.Errorf("register the stack %s: %w", numRefs(nums), err)
		}
		res.Stack, res.StackAction, res.Changed = s.Number, "created", true
		fmt.Fprintf(progress, "registered stack %d: %s\n", s.Number, numRefs(nums))
	case p.unchanged:
		res.Stack, res.StackAction = p.stack, "unchanged"
	default:
		top := nums[p.keep:]
		if _, err := gh.AddToStack(ctx, p.stack, top); err != nil {
			return fmt.Errorf("add %s to stack %d: %w", numRefs(top), p.stack, err)
		}
		res.Stack, res.StackAction, res.Changed = p.stack, "extended", true
		fmt.Fprintf(progress, "extended stack %d with %s\n", p.stack, numRefs(top))
	}
	return nil
}

// listRefs renders a list whose 0 entries are pull requests to open.
func listRefs(nums []int) string {
	s := ""
	for i, n := range nums {
		if i > 0 {
			s += ", "
		}
		if n == 0 {
			s += "(new)"
		} else {
			s += fmt.Sprintf("#%d", n)
		}
	}
	return s
}
