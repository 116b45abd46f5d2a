package apply

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
)

func TestParseRisk(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		code       exitcode.Code
	}{
		{"none line", "# P\n\nRisk flags: none\n", nil, 0},
		{"no line", "# P\n\n## Why\nx\n", nil, 0},
		{"two flags", "Risk flags: AUTH, MIGRATION\n", []string{"AUTH", "MIGRATION"}, 0},
		{"emphasis and list", "- **Risk flags:** state_machine persist\n", []string{"STATE_MACHINE", "PERSIST"}, 0},
		{"duplicates once", "Risk flags: AUTH, AUTH\n", []string{"AUTH"}, 0},
		{"unknown", "Risk flags: SCARY\n", nil, exitcode.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRisk(tt.text)
			if tt.code != 0 {
				if exitcode.Of(err) != tt.code {
					t.Fatalf("ParseRisk(%q) error %v, want exit %d", tt.text, err, tt.code)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseRisk(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"add-export", "add-export"},
		{"Add Export!", "add-export"},
		{"v1.2_fix", "v1.2_fix"},
		{"--x--", "x"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

const exportTasks = "## 1. Export API\n- [ ] 1.1 Add `src/api/export.ts` endpoint\n- [ ] 1.2 Wire `src/api/router.ts` to the export endpoint\n\n## 2. Export docs\n- [ ] 2.1 Document the export endpoint in `docs/export.md`\n- [ ] 2.2 Add a usage example to `docs/examples/export.md`\n"

func project(t *testing.T, tasks string) spec.Root {
	t.Helper()
	dir := t.TempDir()
	ch := filepath.Join(dir, "openspec", "changes", "add-export")
	if err := os.MkdirAll(ch, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ch, "tasks.md"), []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := spec.FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecide(t *testing.T) {
	r := project(t, exportTasks)
	tests := []struct {
		asked     string
		dist      string
		tasks     int
		groups    []string
		briefHas  string
		briefNot  string
		scopedMsg bool
	}{
		{Auto, FanOut, 2, []string{"1", "2"}, "1.1 Add", "2.1 Document", true},
		{FanOut, FanOut, 2, []string{"1", "2"}, "1.2 Wire", "2.2 Add", true},
		{Single, Single, 1, nil, "2.2 Add", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.asked, func(t *testing.T) {
			d, err := Decide(r, "add-export", tt.asked, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d.Distribution != tt.dist || len(d.Tasks) != tt.tasks || !slices.Equal(d.Groups, tt.groups) {
				t.Fatalf("Decide(%s) = %s, %d tasks, groups %v; want %s, %d, %v", tt.asked, d.Distribution, len(d.Tasks), d.Groups, tt.dist, tt.tasks, tt.groups)
			}
			b := d.Briefs[1]
			if !strings.Contains(b, tt.briefHas) || (tt.briefNot != "" && strings.Contains(b, tt.briefNot)) {
				t.Errorf("brief 1 of %s:\n%s\nwant %q in it and not %q", tt.asked, b, tt.briefHas, tt.briefNot)
			}
			if got := strings.Contains(b, "tick ONLY your own"); got != tt.scopedMsg {
				t.Errorf("brief 1 of %s scoped = %v, want %v", tt.asked, got, tt.scopedMsg)
			}
		})
	}
	if n := areaSize(mustDecide(t, r)); n != 4 {
		t.Errorf("areaSize = %d, want 4", n)
	}
}

func mustDecide(t *testing.T, r spec.Root) Decision {
	d, err := Decide(r, "add-export", Auto, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecideFanOutRefusedWhenUnseparable(t *testing.T) {
	r := project(t, strings.Replace(exportTasks, "docs/export.md", "src/api/export.ts", 1))
	_, err := Decide(r, "add-export", FanOut, 0)
	if exitcode.Of(err) != exitcode.NeedsChoice || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("Decide(fan-out) on overlapping groups: %v, want exit 5 naming the overlap", err)
	}
	d, err := Decide(r, "add-export", Auto, 0)
	if err != nil || d.Distribution != Single {
		t.Fatalf("Decide(auto) on overlapping groups = %s, %v; want single", d.Distribution, err)
	}
}

func TestResolveChange(t *testing.T) {
	r := project(t, exportTasks)
	if got, err := ResolveChange(r, ""); err != nil || got != "add-export" {
		t.Fatalf("ResolveChange = %q, %v; want the only change with unticked tasks", got, err)
	}
	done := project(t, "## 1. A\n- [x] 1.1 Done `a.go`\n")
	if _, err := ResolveChange(done, ""); exitcode.Of(err) != exitcode.NeedsChoice || !strings.Contains(err.Error(), "no change has unticked tasks (active: add-export)") {
		t.Fatalf("ResolveChange with nothing open: %v", err)
	}
}

func TestDecideSmallGroupAfterFanIn(t *testing.T) {
	r := project(t, exportTasks+"\n## 3. Changelog\n- [ ] 3.1 Note it in `CHANGELOG.md`\n")
	d, err := Decide(r, "add-export", Auto, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 2}, {3}}
	if d.Distribution != FanOut || len(d.Waves) != 2 || !slices.Equal(d.Waves[0], want[0]) || !slices.Equal(d.Waves[1], want[1]) {
		t.Fatalf("Decide = %s, waves %v; want fan-out, waves %v", d.Distribution, d.Waves, want)
	}
	if !strings.Contains(d.Briefs[3], "3.1 Note it") || strings.Contains(d.Briefs[3], "1.1 Add") {
		t.Errorf("brief of the small group:\n%s", d.Briefs[3])
	}
	if got := d.TaskGroups; len(got) != 3 || !slices.Equal(got[2], []string{"3"}) {
		t.Errorf("TaskGroups = %v, want the small group last", got)
	}
}

// The native validator covers the built-in spec-driven schema only: a
// project schema, even one named spec-driven, is validated by the CLI.
func TestNeedsCLI(t *testing.T) {
	r := project(t, exportTasks)
	if s, needs, err := NeedsCLI(r, "add-export"); err != nil || needs || s != "spec-driven" {
		t.Fatalf("built-in: NeedsCLI = %q, %v, %v; want spec-driven, false", s, needs, err)
	}
	dir := filepath.Join(r.OpenSpecDir(), "schemas", "spec-driven")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "name: spec-driven\nartifacts:\n  - id: tasks\n    generates: tasks.md\n"
	if err := os.WriteFile(filepath.Join(dir, "schema.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := spec.FindRoot(filepath.Dir(r.OpenSpecDir()))
	if err != nil {
		t.Fatal(err)
	}
	if s, needs, err := NeedsCLI(r2, "add-export"); err != nil || !needs || s != "spec-driven" {
		t.Fatalf("project override: NeedsCLI = %q, %v, %v; want spec-driven, true", s, needs, err)
	}
}

// A project schema needs the OpenSpec CLI for the health check: without
// it on PATH the check is exit 7 naming the CLI, never a pass.
func TestCheckHealthProjectSchemaWithoutCLI(t *testing.T) {
	r := project(t, exportTasks)
	dir := filepath.Join(r.OpenSpecDir(), "schemas", "checklist")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "name: checklist\nartifacts:\n  - id: tasks\n    generates: tasks.md\n"
	if err := os.WriteFile(filepath.Join(dir, "schema.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.OpenSpecDir(), "config.yaml"), []byte("schema: checklist\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := spec.FindRoot(filepath.Dir(r.OpenSpecDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	err = CheckHealth(t.Context(), r, "add-export", nil)
	if exitcode.Of(err) != exitcode.Missing || !strings.Contains(err.Error(), "needs the OpenSpec CLI") {
		t.Fatalf("CheckHealth without openspec on PATH: %v (exit %d), want exit 7 naming the CLI", err, exitcode.Of(err))
	}
}

func TestRouteChange(t *testing.T) {
	r := project(t, exportTasks)
	d := mustDecide(t, r)
	tests := []struct {
		name     string
		proposal string
		o        RouteOptions
		level    string
		gate     int
	}{
		{"standard", "", RouteOptions{}, LevelStandard, 2},
		{"within the file limit", "", RouteOptions{MaxFiles: 4}, LevelStandard, 2},
		{"over the file limit", "", RouteOptions{MaxFiles: 3}, LevelRisk, DefaultRiskMinGroupTasks},
		// src/api, docs and docs/examples
		{"within the folder limit", "", RouteOptions{MaxModules: 3}, LevelStandard, 2},
		{"over the folder limit", "", RouteOptions{MaxModules: 2}, LevelRisk, DefaultRiskMinGroupTasks},
		{"flagged", "Risk flags: AUTH\n", RouteOptions{}, LevelRisk, DefaultRiskMinGroupTasks},
		{"flagged, configured", "Risk flags: AUTH\n", RouteOptions{MinGroupTasks: 2, RiskMinGroupTasks: 5}, LevelRisk, 5},
		{"never below min-group-tasks", "Risk flags: PERSIST\n", RouteOptions{MinGroupTasks: 4, RiskMinGroupTasks: 1}, LevelRisk, 4},
		{"none", "Risk flags: none\n", RouteOptions{}, LevelStandard, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(r.ChangeDir("add-export"), "proposal.md")
			if err := os.WriteFile(p, []byte("# P\n\n"+tt.proposal), 0o644); err != nil {
				t.Fatal(err)
			}
			rt, err := RouteChange(r, "add-export", d, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if rt.Level != tt.level || rt.MinGroupTasks != tt.gate || len(rt.Reasons) == 0 {
				t.Errorf("RouteChange = %+v; want level %s, gate %d, reasons", rt, tt.level, tt.gate)
			}
		})
	}
}
