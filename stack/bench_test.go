package stack

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkBuildGraph layers a 2000-ticket spec whose tickets each block
// the next three.
func BenchmarkBuildGraph(b *testing.B) {
	tickets := make([]*Ticket, 2000)
	for i := range tickets {
		t := &Ticket{Number: i + 1, Position: i, BlockedBy: []int{}}
		for d := 1; d <= 3 && i-d >= 0; d++ {
			t.BlockedBy = append(t.BlockedBy, i+1-d)
		}
		tickets[i] = t
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := BuildGraph(tickets); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRecipe parses a long ticket body.
func BenchmarkParseRecipe(b *testing.B) {
	var body strings.Builder
	body.WriteString("Intro\n\n## Validation\n### Run per change\n")
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&body, "- Step %d: `go test ./pkg%d/...`\n- Needs: `docker`\n", i, i)
	}
	body.WriteString("### Run at review\n- `make all`\n")
	s := body.String()
	b.ResetTimer()
	for b.Loop() {
		if r := ParseRecipe(s); len(r.PerChange) != 500 {
			b.Fatalf("got %d commands", len(r.PerChange))
		}
	}
}
