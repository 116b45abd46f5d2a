package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func benchSpec(n int) string {
	var b strings.Builder
	b.WriteString("# cap Specification\n\n## Purpose\nA capability large enough to make merging measurable in a benchmark.\n\n## Requirements\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\n### Requirement: Behaviour %d\nThe system SHALL do %d.\n\n#### Scenario: One\n- **WHEN** asked\n- **THEN** answers\n", i, i)
	}
	return b.String()
}

const benchDelta = "## ADDED Requirements\n\n### Requirement: New\nThe system SHALL be new.\n\n#### Scenario: New\n- **WHEN** x\n- **THEN** y\n\n## MODIFIED Requirements\n\n### Requirement: Behaviour 3\nThe system SHALL do 3 better.\n\n#### Scenario: One\n- **WHEN** asked\n- **THEN** answers\n\n## REMOVED Requirements\n\n### Requirement: Behaviour 7\n"

func BenchmarkMerge(b *testing.B) {
	target := benchSpec(50)
	for b.Loop() {
		if _, err := Merge("cap", "bench", benchDelta, target, true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListChanges(b *testing.B) {
	dir := b.TempDir()
	r := Root{Dir: dir}
	for i := 0; i < 20; i++ {
		d := r.ChangeDir(fmt.Sprintf("change-%02d", i))
		if err := os.MkdirAll(filepath.Join(d, "specs", "cap"), 0o755); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "tasks.md"), []byte("## 1. A\n- [x] 1.1 a\n- [ ] 1.2 b\n"), 0o644)
		os.WriteFile(filepath.Join(d, "specs", "cap", "spec.md"), []byte(benchDelta), 0o644)
	}
	for b.Loop() {
		if _, err := r.ListChanges(false); err != nil {
			b.Fatal(err)
		}
	}
}
