package drift

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/spec"
)

func TestRebaseMergesRecordsBaseAndChecksClean(t *testing.T) {
	for _, vcs := range []string{"jj", "git"} {
		t.Run(vcs, func(t *testing.T) {
			dir := parallelRepo(t, vcs)
			root, _ := spec.FindRoot(dir)
			ctx := context.Background()
			p, err := Open(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.PlanRebase(ctx, "b")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Merged) != 1 || res.Conflicts != 0 || res.NewBase == "" || len(res.Files) != 2 {
				t.Fatalf("rebase: %+v", res)
			}
			delta := res.Files[0].New
			if !strings.Contains(delta, "Scenario: Windsurf") || !strings.Contains(delta, "Scenario: Kilo") {
				t.Fatalf("rebased delta:\n%s", delta)
			}
			live, _ := os.ReadFile(filepath.Join(dir, "openspec/specs/auth/spec.md"))
			if err := res.Apply(root, t.TempDir()); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(filepath.Join(dir, "openspec/specs/auth/spec.md"))
			if string(after) != string(live) {
				t.Fatal("rebase touched openspec/specs/")
			}
			if got := root.ChangeBase("b"); got != res.NewBase {
				t.Fatalf("recorded base %q, want %q", got, res.NewBase)
			}
			p, _ = Open(ctx, root)
			rep, err := p.Check(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() || rep.Changes[0].Bases["auth"].Source != "metadata" {
				t.Fatalf("after rebase: %+v", rep)
			}
			// Nothing stale any more: a second rebase changes nothing.
			res, err = p.PlanRebase(ctx, "b")
			if err != nil || len(res.Files) != 0 {
				t.Fatalf("second rebase: %+v, %v", res, err)
			}
		})
	}
}

func TestRebaseWithoutHistoryHasNoBase(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	files := change("b")
	files["openspec/config.yaml"] = "schema: spec-driven\n"
	files["openspec/specs/auth/spec.md"] = authSpec
	files["openspec/changes/b/specs/auth/spec.md"] = modifyLogin(scenarioB)
	write(t, dir, files)
	root, _ := spec.FindRoot(dir)
	p, _ := Open(context.Background(), root)
	if _, err := p.PlanRebase(context.Background(), "b"); !errors.Is(err, ErrNoBase) {
		t.Fatalf("err %v, want ErrNoBase", err)
	}
}

func TestRecordedBaseNotInRepositoryIsNoBase(t *testing.T) {
	dir := parallelRepo(t, "git")
	write(t, dir, map[string]string{"openspec/changes/b/.openspec.yaml": "schema: spec-driven\nbase: \"0123456789abcdef0123456789abcdef01234567\"\n"})
	root, _ := spec.FindRoot(dir)
	p, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Changes[0].Bases["auth"]
	if len(rep.Findings) != 0 || !rep.Changes[0].NoBase || !strings.Contains(b.Note, "is not a commit of this repository") {
		t.Fatalf("report: %+v", rep)
	}
}
