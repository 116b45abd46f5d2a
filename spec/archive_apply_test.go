package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/journal"
)

const authSpec = "# auth Specification\n\n## Purpose\nAuthenticate users with passwords and sessions so that only known people can use the product.\n\n" +
	"## Requirements\n\n### Requirement: Password login\nThe system SHALL let a user log in.\n\n#### Scenario: Login\n- **WHEN** a user logs in\n- **THEN** a session is created\n"

func archiveFixture(t *testing.T) Root {
	t.Helper()
	dir := t.TempDir()
	for p, s := range map[string]string{
		"openspec/specs/auth/spec.md":              "" + authSpec,
		"openspec/changes/perm/proposal.md":        "## Why\nOnly the owner may export the account's data, never anyone else.\n\n## What Changes\n- Add it\n",
		"openspec/changes/perm/tasks.md":           "## 1. Work\n- [x] 1.1 Do it\n",
		"openspec/changes/perm/specs/auth/spec.md": "## ADDED Requirements\n\n### Requirement: Export permission\nThe system SHALL let only the owner export.\n\n#### Scenario: Not the owner\n- **WHEN** another user exports\n- **THEN** it is refused\n",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Root{Dir: dir}
}

// TestApplyRefusesASpecChangedSincePlanned: archive compares the bytes it
// read with the bytes on disk before writing, and refuses instead of
// overwriting; nothing is written or moved.
func TestApplyRefusesASpecChangedSincePlanned(t *testing.T) {
	r := archiveFixture(t)
	plan, err := r.PlanArchive("perm", ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(r.SpecsDir(), "auth", "spec.md")
	edited := authSpec + "\n<!-- edited meanwhile -->\n"
	if err := os.WriteFile(target, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	err = plan.Apply(filepath.Join(t.TempDir(), "journal"))
	if !errors.Is(err, journal.ErrChanged) || !strings.Contains(err.Error(), "openspec/specs/auth/spec.md") {
		t.Fatalf("got %v, want journal.ErrChanged naming the spec", err)
	}
	if b, _ := os.ReadFile(target); string(b) != edited {
		t.Errorf("the edited spec was overwritten:\n%s", b)
	}
	if _, err := os.Stat(r.ChangeDir("perm")); err != nil {
		t.Errorf("the change moved: %v", err)
	}
}

// TestResolve follows links inside Bound and refuses those that leave it,
// dangling or not, naming the link.
func TestResolve(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name, link, target string
		wantLink           string // empty: allowed
	}{
		{"inside, relative", "openspec/specs/auth", "../../shared/auth", ""},
		{"outside, absolute", "openspec/specs/auth", outside, "openspec/specs/auth"},
		{"outside, relative", "openspec/specs/auth", "../../../beside", "openspec/specs/auth"},
		{"outside, dangling", "openspec/specs/auth", filepath.Join(outside, "missing"), "openspec/specs/auth"},
		{"specs dir out", "openspec/specs", outside, "openspec/specs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := archiveFixture(t)
			os.MkdirAll(filepath.Join(r.Dir, "shared", "auth"), 0o755)
			os.MkdirAll(filepath.Join(r.Dir, "..", "beside"), 0o755)
			p := filepath.Join(r.Dir, tt.link)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tt.target, p); err != nil {
				t.Fatal(err)
			}
			got, err := r.Resolve(filepath.Join(r.SpecsDir(), "auth", "spec.md"))
			if tt.wantLink == "" {
				real, _ := filepath.EvalSymlinks(filepath.Join(r.Dir, "shared", "auth"))
				if err != nil || got != filepath.Join(real, "spec.md") {
					t.Fatalf("got %q %v", got, err)
				}
				return
			}
			var le *LinkError
			if !errors.As(err, &le) || !errors.Is(err, ErrOutside) || le.Link != tt.wantLink {
				t.Fatalf("got %q %v, want a *LinkError naming %s", got, err, tt.wantLink)
			}
		})
	}
}
