package stack

import (
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

func stackOf(number int, pulls ...int) ghapi.Stack {
	s := ghapi.Stack{Number: number}
	for _, p := range pulls {
		s.PullRequests = append(s.PullRequests, ghapi.StackEntry{Number: p})
	}
	return s
}

func TestPlanStack(t *testing.T) {
	stacks := []ghapi.Stack{stackOf(1, 10, 11, 12), stackOf(2, 20, 21)}
	tests := []struct {
		name      string
		nums      []int
		want      stackPlan
		wantError string
	}{
		{name: "new stack", nums: []int{0, 0, 0}, want: stackPlan{}},
		{name: "new stack of known PRs", nums: []int{30, 31}, want: stackPlan{}},
		{name: "whole stack again", nums: []int{10, 11, 12}, want: stackPlan{stack: 1, unchanged: true}},
		{name: "part of the stack", nums: []int{11, 12}, want: stackPlan{stack: 1, unchanged: true}},
		{name: "extend the whole stack", nums: []int{10, 11, 12, 0, 0}, want: stackPlan{stack: 1, keep: 3}},
		{name: "extend from the top", nums: []int{12, 0}, want: stackPlan{stack: 1, keep: 1}},
		{name: "extend with a known PR", nums: []int{11, 12, 40}, want: stackPlan{stack: 1, keep: 2}},
		{name: "skips a layer", nums: []int{10, 12}, wantError: "stack 1 holds #10, #11, #12, which the list #10, #12 does not extend on top"},
		{name: "below the top", nums: []int{11, 0}, wantError: "does not extend on top"},
		{name: "two stacks", nums: []int{12, 20}, wantError: "in two stacks (1 and 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := planStack(stacks, tt.nums)
			if tt.wantError != "" {
				if err == nil || exitcode.Of(err) != exitcode.Failure || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("planStack(%v) = %+v, %v; want %+v", tt.nums, got, err, tt.want)
			}
		})
	}
}
