package stack

import (
	"fmt"
	"io"
	"strings"

	"github.com/specstack/specstack/stack/ghapi"
)

func linkBody(i, n int, base string) string {
	return fmt.Sprintf("Layer %d of %d of a stack, based on `%s`. Linked by gh-specstack; stays draft until the stack is ready.\n", i+1, n, base)
}

func chainInstructions(layers []LinkLayer) []string {
	res := []string{"Merge bottom-up, one pull request at a time, with a merge commit (not squash or rebase, which rewrite the commits and give every pull request above a phantom diff); delete each head branch right after its merge so GitHub retargets the next pull request:"}
	for i, l := range layers {
		res = append(res, fmt.Sprintf("%d. #%d %s → %s, then delete %s", i+1, l.PR, l.Branch, l.Base, l.Branch))
	}
	return res
}

func pullRefs(ps []ghapi.PullRequest) string {
	nums := make([]int, len(ps))
	for i, p := range ps {
		nums[i] = p.Number
	}
	return numRefs(nums)
}

func numRefs(nums []int) string { return refs(nums) }

// WriteText renders the result for a person.
func (r *LinkResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s stack on %s\n", r.Repo, r.StackMode, r.Base)
	for i := len(r.Layers) - 1; i >= 0; i-- {
		l := r.Layers[i]
		fmt.Fprintf(&b, "  %d. #%d %s → %s (%s, %s) %s\n", i+1, l.PR, l.Branch, l.Base, l.PRAction, l.Push, l.URL)
	}
	switch r.StackAction {
	case "created":
		fmt.Fprintf(&b, "stack %d registered\n", r.Stack)
	case "extended":
		fmt.Fprintf(&b, "stack %d extended\n", r.Stack)
	case "unchanged":
		fmt.Fprintf(&b, "stack %d unchanged\n", r.Stack)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, m := range r.MergeInstructions {
		fmt.Fprintf(&b, "%s\n", m)
	}
	if !r.Changed {
		b.WriteString("nothing to change: the stack is already linked\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
