package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/plan"
)

// genPlan writes a plan of n tasks with files files each; each file is
// shared by a few tasks, as in real plans.
func genPlan(n, files int) []byte {
	var b strings.Builder
	b.WriteString("# Generated plan\n\nGlobal constraints: none.\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n### Task %d: generated task %d\n\n**Files:**\n", i, i)
		for j := 0; j < files; j++ {
			role := "Modify"
			if j == 0 {
				role = "Create"
			}
			fmt.Fprintf(&b, "- %s: `pkg%d/file%d.go:%d-%d`\n", role, (i*7+j*13)%300, j, j+1, j+10)
		}
		fmt.Fprintf(&b, "\nDo the thing number %d.\n", i)
	}
	return []byte(b.String())
}

func TestBuildPlanView(t *testing.T) {
	p, err := plan.ParsePlan(genPlan(5, 2))
	if err != nil {
		t.Fatal(err)
	}
	v, err := BuildPlanView(t.Context(), p, "gen.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Total != 5 || len(v.Tasks) != 5 || v.BaseChecked {
		t.Errorf("view: total %d, tasks %d, base checked %v", v.Total, len(v.Tasks), v.BaseChecked)
	}
	var b strings.Builder
	if err := v.Text(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "note: not in a jj repository, Modify: paths were not checked") {
		t.Errorf("text does not say the base was not checked:\n%s", b.String())
	}
}

// BenchmarkPlanning plans 2,000 tasks with 10 files each: parse, waves,
// overlaps, parallelism and the pre-flight scan (target: under 50 ms).
func BenchmarkPlanning(b *testing.B) {
	data := genPlan(2000, 10)
	for b.Loop() {
		p, err := plan.ParsePlan(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := BuildPlanView(b.Context(), p, "gen.md", nil); err != nil {
			b.Fatal(err)
		}
	}
}
