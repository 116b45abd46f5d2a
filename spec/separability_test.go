package spec

import (
	"slices"
	"strings"
	"testing"
)

// The add-export worked example of the reference jj-openspec skill.
const addExport = `## 1. Export API
- [ ] 1.1 Add ` + "`src/api/export.ts`" + ` endpoint
- [ ] 1.2 Wire ` + "`src/api/router.ts`" + ` to the export endpoint

## 2. Export docs
- [ ] 2.1 Document the export endpoint in ` + "`docs/export.md`" + `
- [ ] 2.2 Add a usage example to ` + "`docs/examples/export.md`" + `
`

func TestSeparability(t *testing.T) {
	tests := []struct {
		name    string
		tasks   string
		opts    SeparabilityOptions
		fanOut  bool
		workers string
		reason  string // a substring of some reason
	}{
		{name: "add-export fans out", tasks: addExport, fanOut: true, workers: "1,2", reason: "pairwise disjoint"},
		{name: "overlapping areas", tasks: `## 1. API
- [ ] 1.1 Add ` + "`src/api/export.ts`" + `
- [ ] 1.2 Test ` + "`src/api/export_test.ts`" + `

## 2. Router
- [ ] 2.1 Route everything under ` + "`src/api/**`" + `
- [ ] 2.2 Document it in docs/routing.md
`, reason: "groups 1 and 2 overlap: src/api/export.ts and src/api/**"},
		{name: "stated dependency", tasks: `## 1. Export API
- [ ] 1.1 Add src/api/export.ts
- [ ] 1.2 Wire src/api/router.ts

## 2. Export docs
This group depends on group 1 being merged.
- [ ] 2.1 Document docs/export.md
- [ ] 2.2 Example in docs/examples/export.md
`, reason: `group 2 depends on group 1: "This group depends on group 1 being merged."`},
		{name: "dependency by task id", tasks: `## 1. Export API
- [ ] 1.1 Add src/api/export.ts
- [ ] 1.2 Wire src/api/router.ts

## 2. Export docs
- [ ] 2.1 Document docs/export.md after 1.2 lands
- [ ] 2.2 Example in docs/examples/export.md
`, reason: "group 2 depends on group 1"},
		{name: "requires from section", tasks: `## 1. Tokens
- [ ] 1.1 Mint tokens in lib/token.go
- [ ] 1.2 Test lib/token_test.go

## 2. Client
- [ ] 2.1 Client in cmd/client/main.go requires the token format from section 1
- [ ] 2.2 Docs in docs/client.md
`, reason: "group 2 depends on group 1"},
		{name: "undeterminable group", tasks: `## 1. Export API
- [ ] 1.1 Add src/api/export.ts
- [ ] 1.2 Wire src/api/router.ts

## 2. Polish
- [ ] 2.1 Make it nicer
- [ ] 2.2 Think about edge cases
`, reason: "group 2 (Polish) names no file path or glob: its area is undeterminable"},
		{name: "flat tasks.md", tasks: "- [ ] 1.1 Add src/a.go\n- [ ] 1.2 Add docs/b.md\n", reason: `no "## " groups`},
		{name: "size gate", tasks: `## 1. A
- [ ] 1.1 Add src/a.go
- [ ] 1.2 Test src/a_test.go

## 2. B
- [ ] 2.1 Add docs/b.md
`, reason: "only 1 group has at least 2 unchecked tasks"},
		{name: "size gate lowered", tasks: `## 1. A
- [ ] 1.1 Add src/a.go

## 2. B
- [ ] 2.1 Add docs/b.md
`, opts: SeparabilityOptions{MinGroupTasks: 1}, fanOut: true, workers: "1,2"},
		{name: "done groups ignored", tasks: `## 1. A
- [x] 1.1 Add src/a.go
- [x] 1.2 More src/a.go

## 2. B
- [ ] 2.1 Add docs/b.md
- [ ] 2.2 Add docs/c.md
`, reason: "only 1 group has unchecked tasks"},
		{name: "ungrouped tasks", tasks: "- [ ] 0.1 Setup Makefile\n\n" + addExport, reason: "1 task sits above the first group"},
		{name: "glob against literal dir", tasks: `## 1. A
- [ ] 1.1 Rewrite docs/
- [ ] 1.2 Also docs/index.md

## 2. B
- [ ] 2.1 Add docs/**/*.md pages
- [ ] 2.2 Check them
`, reason: "groups 1 and 2 overlap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Separability(tt.tasks, tt.opts)
			if v.FanOut != tt.fanOut {
				t.Errorf("FanOut = %v, want %v; reasons: %q", v.FanOut, tt.fanOut, v.Reasons)
			}
			if got := strings.Join(v.Workers, ","); got != tt.workers {
				t.Errorf("Workers = %q, want %q", got, tt.workers)
			}
			if tt.reason != "" && !strings.Contains(strings.Join(v.Reasons, "\n"), tt.reason) {
				t.Errorf("reasons %q lack %q", v.Reasons, tt.reason)
			}
		})
	}
}

func TestSeparabilityAreas(t *testing.T) {
	v := Separability(addExport, SeparabilityOptions{})
	want := [][]string{{"src/api/export.ts", "src/api/router.ts"}, {"docs/examples/export.md", "docs/export.md"}}
	for i, g := range v.Groups {
		if strings.Join(g.Area, " ") != strings.Join(want[i], " ") {
			t.Errorf("group %s area = %q, want %q", g.Number, g.Area, want[i])
		}
	}
}

func TestPathsIn(t *testing.T) {
	tests := []struct{ line, want string }{
		{"Add `src/api/export.ts` endpoint", "src/api/export.ts"},
		{"Update docs/** and README.md, e.g. for 1.2", "docs/** README.md"},
		{"See https://example.com/x.html", ""},
		{"Bump version 1.2.3 to 2.0", ""},
		{"Edit ./cmd/main.go (and internal/)", "cmd/main.go internal/**"},
		{"`make test` passes", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(pathsIn(tt.line), " "); got != tt.want {
			t.Errorf("pathsIn(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func FuzzSeparability(f *testing.F) {
	f.Add(addExport)
	f.Add("## 1. x\n- [ ] 1.1 after 2. `a/*`\n## 2. y\n- [ ] 2.1 {b,c}/**\n")
	f.Fuzz(func(t *testing.T, s string) {
		v := Separability(s, SeparabilityOptions{})
		if v.FanOut && len(v.Workers) < 2 {
			t.Fatalf("fan-out with %d workers", len(v.Workers))
		}
		if len(v.Reasons) == 0 {
			t.Fatal("a verdict without reasons")
		}
	})
}

func TestTaskPaths(t *testing.T) {
	tests := []struct {
		text  string
		paths []string
		named []string
		not   []string
	}{
		{"1.1 Add `src/export.ts` endpoint", []string{"src/export.ts"}, []string{"src/export.ts"}, []string{"src/export.tsx", "src/other.ts"}},
		{"2.1 Document it under docs/", []string{"docs/**"}, []string{"docs/a.md", "docs/x/b.md"}, []string{"doc/a.md"}},
		{"3.1 Touch `src/api` and `*.md`", []string{"src/api", "*.md"}, []string{"src/api/x.go", "README.md"}, []string{"src/apix/x.go", "docs/README.md"}},
		{"4.1 Run the tests", nil, nil, []string{"a.go"}},
	}
	for _, tt := range tests {
		got := TaskPaths(tt.text)
		if !slices.Equal(got, tt.paths) {
			t.Errorf("TaskPaths(%q) = %q, want %q", tt.text, got, tt.paths)
		}
		named := func(f string) bool {
			return slices.ContainsFunc(got, func(p string) bool { return PathNamed(p, f) })
		}
		for _, f := range tt.named {
			if !named(f) {
				t.Errorf("%q: %s not named by %q", tt.text, f, got)
			}
		}
		for _, f := range tt.not {
			if named(f) {
				t.Errorf("%q: %s named by %q", tt.text, f, got)
			}
		}
	}
}
