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
		if _, err := Merge("cap", "bench", benchDelta, target, "/r/openspec/specs/cap/spec.md", true); err != nil {
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

// bigDelta adds n requirements to benchSpec(n) and modifies, removes and
// renames a tenth of its requirements each.
func bigDelta(n int) string {
	var d strings.Builder
	d.WriteString("## ADDED Requirements\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&d, "\n### Requirement: Added %d\nThe system SHALL add %d.\n\n#### Scenario: One\n- **WHEN** asked\n- **THEN** answers\n", i, i)
	}
	d.WriteString("\n## MODIFIED Requirements\n")
	for i := 0; i < n/10; i++ {
		fmt.Fprintf(&d, "\n### Requirement: Behaviour %d\nThe system SHALL do %d better.\n\n#### Scenario: One\n- **WHEN** asked\n- **THEN** answers\n", i, i)
	}
	d.WriteString("\n## REMOVED Requirements\n")
	for i := n / 10; i < n/5; i++ {
		fmt.Fprintf(&d, "\n### Requirement: Behaviour %d\n", i)
	}
	d.WriteString("\n## RENAMED Requirements\n")
	for i := n / 5; i < n/5+n/10; i++ {
		fmt.Fprintf(&d, "\n- FROM: `### Requirement: Behaviour %d`\n- TO: `### Requirement: Renamed %d`\n", i, i)
	}
	return d.String()
}

// bigArchive writes a project whose main spec holds n requirements and
// whose change adds n more, modifies, renames and removes some: the shape
// that made archive quadratic.
func bigArchive(tb testing.TB, n int) Root {
	tb.Helper()
	r := Root{Dir: tb.TempDir()}
	for p, content := range map[string]string{
		filepath.Join(r.SpecsDir(), "cap", "spec.md"):                benchSpec(n),
		filepath.Join(r.ChangeDir("big"), "proposal.md"):             "## Why\nGrow.\n\n## What Changes\n- Grow cap\n",
		filepath.Join(r.ChangeDir("big"), "tasks.md"):                "## 1. Grow\n- [x] 1.1 grow\n",
		filepath.Join(r.ChangeDir("big"), "specs", "cap", "spec.md"): bigDelta(n),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// BenchmarkArchivePlan plans (validates, merges, diffs) the archive of a
// change adding n requirements to a spec holding n. Its ns/op grows
// linearly: 8k costs about 8 times 1k.
func BenchmarkArchivePlan(b *testing.B) {
	for _, n := range []int{1000, 8000} {
		b.Run(fmt.Sprintf("requirements=%d", n), func(b *testing.B) {
			r := bigArchive(b, n)
			for b.Loop() {
				p, err := r.PlanArchive("big", ArchiveOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if p.Diff() == "" {
					b.Fatal("empty diff")
				}
			}
		})
	}
}
