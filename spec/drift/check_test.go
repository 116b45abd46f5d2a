package drift

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/spec"
)

const authSpec = `# auth Specification

## Purpose
Authenticate users with passwords and sessions so that only known people can use the product.

## Requirements

### Requirement: Login
The system SHALL log users in.

#### Scenario: Valid
- **WHEN** valid credentials
- **THEN** a session

### Requirement: Legacy tokens
The system SHALL accept legacy tokens.

#### Scenario: Token
- **WHEN** a legacy token is sent
- **THEN** it is accepted
`

func modifyLogin(extra string) string {
	return "## MODIFIED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: Valid\n- **WHEN** valid credentials\n- **THEN** a session\n\n" + extra + "\n"
}

const (
	scenarioA = "#### Scenario: Windsurf\n- **WHEN** windsurf logs in\n- **THEN** a session"
	scenarioB = "#### Scenario: Kilo\n- **WHEN** kilo logs in\n- **THEN** a session"
)

func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func change(name string) map[string]string {
	return map[string]string{
		"openspec/changes/" + name + "/proposal.md": "## Why\nBecause parallel work on one capability needs it, every single day of the week.\n\n## What Changes\n- " + name + "\n",
		"openspec/changes/" + name + "/tasks.md":    "## 1. Work\n- [x] 1.1 Do it\n",
	}
}

// parallelRepo builds the documented failure in a VCS: changes a and b
// each add a scenario to Login from the same base; a is then archived
// (its delta merged by hand here) and committed.
func parallelRepo(t *testing.T, vcs string) string {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	commit := func(msg string) {
		if vcs == "jj" {
			run(t, dir, "jj", "commit", "-m", msg)
		} else {
			run(t, dir, "git", "add", "-A")
			run(t, dir, "git", "commit", "-q", "-m", msg)
		}
	}
	if vcs == "jj" {
		run(t, dir, "jj", "git", "init", "--no-colocate", ".")
	} else {
		run(t, dir, "git", "init", "-q", ".")
	}
	write(t, dir, map[string]string{"openspec/config.yaml": "schema: spec-driven\n", "openspec/specs/auth/spec.md": authSpec})
	commit("base")
	a := change("a")
	a["openspec/changes/a/specs/auth/spec.md"] = modifyLogin(scenarioA)
	write(t, dir, a)
	commit("change a")
	b := change("b")
	b["openspec/changes/b/specs/auth/spec.md"] = modifyLogin(scenarioB)
	write(t, dir, b)
	commit("change b")
	archived := strings.Replace(authSpec, "- **THEN** a session\n", "- **THEN** a session\n\n"+scenarioA+"\n", 1)
	write(t, dir, map[string]string{"openspec/specs/auth/spec.md": archived})
	if err := os.Rename(filepath.Join(dir, "openspec/changes/a"), filepath.Join(dir, "openspec/changes/archive-tmp")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"openspec/changes/archive/.keep": ""})
	if err := os.Rename(filepath.Join(dir, "openspec/changes/archive-tmp"), filepath.Join(dir, "openspec/changes/archive/2026-01-02-a")); err != nil {
		t.Fatal(err)
	}
	commit("archive a")
	return dir
}

func TestCheckReportsStaleNamingTheArchiveCommit(t *testing.T) {
	for _, vcs := range []string{"jj", "git"} {
		t.Run(vcs, func(t *testing.T) {
			dir := parallelRepo(t, vcs)
			root, err := spec.FindRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Open(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if p.Hist.Kind() != vcs {
				t.Fatalf("history %s, want %s", p.Hist.Kind(), vcs)
			}
			rep, err := p.Check(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 1 {
				t.Fatalf("findings: %+v", rep.Findings)
			}
			f := rep.Findings[0]
			if f.Kind != Stale || f.Change != "b" || f.Capability != "auth" || f.Requirement != "Login" || f.Op != "MODIFIED" {
				t.Fatalf("finding: %+v", f)
			}
			if f.MovedBy == nil || f.MovedBy.Summary != "archive a" || f.ArchivedBy != "2026-01-02-a" {
				t.Fatalf("moved by %+v, archived by %q", f.MovedBy, f.ArchivedBy)
			}
			if f.Conflicts != 0 || !strings.Contains(f.Preview, "Scenario: Windsurf") || !strings.Contains(f.Preview, "Scenario: Kilo") {
				t.Fatalf("preview (%d conflicts):\n%s", f.Conflicts, f.Preview)
			}
			if rep.Changes[0].Bases["auth"].Source != "history" {
				t.Fatalf("bases: %+v", rep.Changes)
			}
		})
	}
}

func TestCheckOverlapMissingAlreadyApplied(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	run(t, dir, "jj", "git", "init", "--no-colocate", ".")
	write(t, dir, map[string]string{"openspec/config.yaml": "schema: spec-driven\n", "openspec/specs/auth/spec.md": authSpec})
	run(t, dir, "jj", "commit", "-m", "base")
	files := change("a")
	files["openspec/changes/a/specs/auth/spec.md"] = modifyLogin(scenarioA)
	for k, v := range change("b") {
		files[k] = v
	}
	files["openspec/changes/b/specs/auth/spec.md"] = modifyLogin(scenarioB)
	for k, v := range change("c") {
		files[k] = v
	}
	files["openspec/changes/c/specs/auth/spec.md"] = "## REMOVED Requirements\n\n- `### Requirement: Legacy tokens`\n- `### Requirement: Ghost`\n\n## ADDED Requirements\n\n### Requirement: Logout\nThe system SHALL log users out.\n\n#### Scenario: Out\n- **WHEN** asked\n- **THEN** out\n"
	write(t, dir, files)
	run(t, dir, "jj", "commit", "-m", "changes")
	// Someone removes Legacy tokens and adds Logout by hand.
	live := strings.Replace(authSpec, "### Requirement: Legacy tokens\nThe system SHALL accept legacy tokens.\n\n#### Scenario: Token\n- **WHEN** a legacy token is sent\n- **THEN** it is accepted\n",
		"### Requirement: Logout\nThe system SHALL log users out.\n\n#### Scenario: Out\n- **WHEN** asked\n- **THEN** out\n", 1)
	write(t, dir, map[string]string{"openspec/specs/auth/spec.md": live})
	root, _ := spec.FindRoot(dir)
	p, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Kind+" "+f.Change+" "+f.Op+" "+f.Requirement+": "+f.Detail)
	}
	want := []string{
		"overlap a MODIFIED Login: other open changes target the same requirement: b (MODIFIED)",
		"overlap b MODIFIED Login: other open changes target the same requirement: a (MODIFIED)",
		"missing c REMOVED Legacy tokens: removed since base",
		"missing c REMOVED Ghost: never existed",
		"already-applied c ADDED Logout: the live spec already holds this requirement",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckWithoutHistorySaysNoBase(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	files := change("b")
	files["openspec/config.yaml"] = "schema: spec-driven\n"
	files["openspec/specs/auth/spec.md"] = authSpec
	files["openspec/changes/b/specs/auth/spec.md"] = modifyLogin(scenarioB)
	write(t, dir, files)
	root, _ := spec.FindRoot(dir)
	p, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.History != "none" || !rep.Changes[0].NoBase || len(rep.Findings) != 0 {
		t.Fatalf("report: %+v", rep)
	}
}

func TestCheckOverlapOfTwoAdds(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	files := map[string]string{"openspec/config.yaml": "schema: spec-driven\n", "openspec/specs/auth/spec.md": authSpec}
	for _, c := range []string{"x", "y"} {
		for k, v := range change(c) {
			files[k] = v
		}
		files["openspec/changes/"+c+"/specs/auth/spec.md"] = "## ADDED Requirements\n\n### Requirement: Logout\nThe system SHALL log users out (" + c + ").\n\n#### Scenario: Out\n- **WHEN** asked\n- **THEN** out\n"
	}
	write(t, dir, files)
	root, _ := spec.FindRoot(dir)
	p, _ := Open(context.Background(), root)
	rep, err := p.Check(context.Background(), []string{"y"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != Overlap || rep.Findings[0].Change != "y" ||
		rep.Findings[0].Detail != "other open changes add a requirement of the same name: x (ADDED)" {
		t.Fatalf("findings: %+v", rep.Findings)
	}
}
