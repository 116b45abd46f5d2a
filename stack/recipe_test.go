package stack

import (
	"slices"
	"testing"
)

func TestLineCommand(t *testing.T) {
	tests := []struct {
		line string
		want string // "" for none
	}{
		{"- `go test ./...`", "go test ./..."},
		{"`make`", "make"},
		{"1. `npm test`", "npm test"},
		{"- [ ] `task check`", "task check"},
		{"> `quoted`", "quoted"},
		{"- Unit: `go test ./pkg/...`", "go test ./pkg/..."},
		{"- **E2E:** `make e2e`", "make e2e"},
		{"- `first` then `second`", "first"},
		{"- ``echo `tick` here``", "echo `tick` here"},
		{"- run everything by hand", ""},
		{"- absent: no tests yet", ""},
		{"- Absent: `go test` does not exist here", ""},
		{"not applicable: `npm test` (no UI)", ""},
		{"- Recipe measured on main: `make bench` 3s", ""},
		{"- Needs: `docker` running", ""},
		{"- Deferred repo gate: `make e2e`", ""},
		{"- Lint: absent: no linter", ""},
		{"- **Integration:** Deferred repo gate: `make e2e`", ""},
		{"- Unit: not applicable: `x`", ""},
		{"- `  `", ""},
		{"- ```sh", ""},
		{"- `unclosed", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := LineCommand(tt.line)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("LineCommand(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func TestParseRecipe(t *testing.T) {
	body := "Intro `not this`\n\n## Validation\n\nSome prose.\n\n### Run per change\n- `go test ./...`\n- `go  test   ./...`\n- `go vet ./...`\n\n### Something else\n- `ignored`\n\n### Run at review\n- `make all`\n\n## Notes\n- `outside`\n"
	r := ParseRecipe(body)
	if !r.HasPerChange {
		t.Error("HasPerChange = false")
	}
	if want := []string{"go test ./...", "go vet ./..."}; !slices.Equal(r.PerChange, want) {
		t.Errorf("PerChange = %q, want %q", r.PerChange, want)
	}
	if want := []string{"make all"}; !slices.Equal(r.AtReview, want) {
		t.Errorf("AtReview = %q, want %q", r.AtReview, want)
	}

	for _, body := range []string{
		"no validation at all",
		"## Validation\n### Run at review\n- `x`\n",
		"### Run per change\n- `x`\n", // not under ## Validation
		"# Validation\n### Run per change\n- `x`\n",
	} {
		if ParseRecipe(body).HasPerChange {
			t.Errorf("ParseRecipe(%q).HasPerChange = true", body)
		}
	}
	// An empty subsection is present but names no command.
	r = ParseRecipe("## Validation\n### Run per change\n- absent: nothing to run\n")
	if !r.HasPerChange || len(r.PerChange) != 0 {
		t.Errorf("empty subsection: %+v", r)
	}
}

func TestRecipesUnion(t *testing.T) {
	tickets := []*Ticket{
		{Number: 4, Body: "## Validation\n### Run per change\n- `b`\n- `a  x`\n"},
		{Number: 2, Body: "## Validation\n### Run per change\n- `a x`\n- `c`\n### Run at review\n- `r`\n"},
		{Number: 3, Title: "none", Body: "nothing"},
	}
	set := Recipes(tickets)
	if want := []string{"b", "a  x", "c"}; !slices.Equal(set.PerChange, want) {
		t.Errorf("PerChange = %q, want %q", set.PerChange, want)
	}
	if want := []string{"r"}; !slices.Equal(set.AtReview, want) {
		t.Errorf("AtReview = %q, want %q", set.AtReview, want)
	}
	if len(set.Missing) != 1 || set.Missing[0].Number != 3 {
		t.Errorf("Missing = %+v", set.Missing)
	}
	if got := set.Tickets["2"].PerChange; !slices.Equal(got, []string{"a x", "c"}) {
		t.Errorf("ticket 2 = %q", got)
	}
}

func FuzzParseRecipe(f *testing.F) {
	f.Add("## Validation\n### Run per change\n- `go test ./...`\n- Needs: `x`\n### Run at review\n- ``a `b` c``\n")
	f.Add("- `unclosed\n## Validation\n### Run per change\n`\n")
	f.Fuzz(func(t *testing.T, body string) {
		r := ParseRecipe(body)
		seen := map[string]bool{}
		for _, c := range r.PerChange {
			if c == "" {
				t.Fatalf("empty command from %q", body)
			}
			if seen[NormalizeCommand(c)] {
				t.Fatalf("duplicate %q from %q", c, body)
			}
			seen[NormalizeCommand(c)] = true
		}
		if len(r.PerChange) > 0 && !r.HasPerChange {
			t.Fatalf("commands without the subsection from %q", body)
		}
	})
}
