package drift

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/spec"
)

// benchRepo is a jj repository of 200 specs and 20 open changes, each
// modifying 10 specs (every spec is targeted by one change), 5 of them
// stale after 20 specs moved.
func benchRepo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	run(b, dir, "jj", "git", "init", "--no-colocate", ".")
	files := map[string]string{"openspec/config.yaml": "schema: spec-driven\n"}
	specText := func(i int, extra string) string {
		return fmt.Sprintf("# cap-%03d Specification\n\n## Purpose\nCapability %d of a large project, kept to measure check.\n\n## Requirements\n\n"+
			"### Requirement: Behaviour %d\nThe system SHALL keep behaviour %d.\n\n#### Scenario: Base\n- **WHEN** it runs\n- **THEN** it works\n%s", i, i, i, i, extra)
	}
	for i := range 200 {
		files[fmt.Sprintf("openspec/specs/cap-%03d/spec.md", i)] = specText(i, "")
	}
	write(b, dir, files)
	run(b, dir, "jj", "commit", "-m", "specs")
	files = map[string]string{}
	for c := range 20 {
		name := fmt.Sprintf("change-%02d", c)
		for k, v := range change(name) {
			files[k] = v
		}
		for k := range 10 {
			i := c*10 + k
			files[fmt.Sprintf("openspec/changes/%s/specs/cap-%03d/spec.md", name, i)] = fmt.Sprintf(
				"## MODIFIED Requirements\n\n### Requirement: Behaviour %d\nThe system SHALL keep behaviour %d.\n\n#### Scenario: Base\n- **WHEN** it runs\n- **THEN** it works\n\n#### Scenario: %s\n- **WHEN** %s\n- **THEN** done\n", i, i, name, name)
		}
	}
	write(b, dir, files)
	run(b, dir, "jj", "commit", "-m", "changes")
	files = map[string]string{}
	for i := 0; i < 200; i += 10 {
		files[fmt.Sprintf("openspec/specs/cap-%03d/spec.md", i)] = specText(i, "\n#### Scenario: Moved\n- **WHEN** moved\n- **THEN** moved\n")
	}
	write(b, dir, files)
	run(b, dir, "jj", "commit", "-m", "moved")
	return dir
}

// BenchmarkCheck runs check over 200 specs and 20 open changes in a real
// jj repository and, when the openspec CLI is on PATH, reports how many
// times faster it is than `openspec validate --all` on the same tree.
func BenchmarkCheck(b *testing.B) {
	testenv.RequireJJ(b)
	vars, err := testenv.Vars(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range vars {
		b.Setenv(k, v)
	}
	dir := benchRepo(b)
	root, err := spec.FindRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var stale int
	start := time.Now()
	n := 0
	for b.Loop() {
		p, err := Open(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := p.Check(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		stale = len(rep.Findings)
		n++
	}
	per := time.Since(start) / time.Duration(n)
	if stale != 20 {
		b.Fatalf("want 20 stale findings, got %d", stale)
	}
	if _, err := openspec.Path(); err != nil {
		b.Logf("openspec not on PATH: no ratio (%v)", err)
		return
	}
	b.StopTimer()
	var out strings.Builder
	t0 := time.Now()
	res, err := openspec.Run(ctx, openspec.Cmd{Args: []string{"validate", "--all", "--no-interactive"}, Dir: dir, Stdout: &out})
	os := time.Since(t0)
	// Exit 1: it validated everything and found the stale changes invalid
	// (their MODIFIED blocks drop the moved scenario).
	if err != nil || res.ExitCode > 1 {
		b.Fatalf("openspec validate --all: exit %d, %v\n%s", res.ExitCode, err, out.String())
	}
	b.ReportMetric(float64(os)/float64(per), "x-vs-openspec-validate-all")
	b.Logf("check %v per run, openspec validate --all %v", per, os)
}
