package openspec_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Random deltas against random specs, built from a small vocabulary so
// that names collide, differ only in case, go missing and come back: the
// real CLI and jj-openspec must validate and archive them alike.

var (
	reqNames  = []string{"Login", "login", "Logout", "Session  expiry", "Session expiry", "Audit", "Tokens ###", "Café", `"Remember me" option`, `Paths under C:\temp`}
	scenNames = []string{"Ok", "Wrong", "Edge", "Ok"}
)

// randReq writes a requirement block; sloppy ones may lack a body, a
// SHALL or a scenario.
func randReq(r *rand.Rand, name string, allScenarios, sloppy bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Requirement: %s\n", name)
	kind := 2
	if sloppy {
		kind = r.IntN(10)
	}
	switch kind {
	case 0:
		b.WriteString("The system does it.\n") // no SHALL: a warning
	case 1:
		// no body at all
	default:
		fmt.Fprintf(&b, "The system SHALL handle %s.\n", strings.ToLower(name))
	}
	names := scenNames
	if !allScenarios {
		names = nil
		for i, n := 0, 1+r.IntN(2); i < n; i++ {
			names = append(names, scenNames[r.IntN(len(scenNames))])
		}
		if sloppy && r.IntN(10) == 0 {
			names = nil
		}
	}
	for _, sn := range names {
		fmt.Fprintf(&b, "\n#### Scenario: %s\n", sn)
		if !sloppy || r.IntN(12) > 0 {
			b.WriteString("- **WHEN** asked\n- **THEN** done\n")
		}
	}
	if r.IntN(8) == 0 {
		b.WriteString("\n```\n### Requirement: fenced\n## REMOVED Requirements\n```\n")
	}
	return b.String()
}

func randSpec(r *rand.Rand, id string) (string, []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s Specification\n\n## Purpose\nA capability generated at random to compare archive with the OpenSpec CLI.\n\n## Requirements\n", id)
	seen := map[string]bool{}
	var names []string
	for i, n := 0, 1+r.IntN(4); i < n; i++ {
		name := reqNames[r.IntN(len(reqNames))]
		if seen[strings.TrimSuffix(name, " ###")] && r.IntN(4) > 0 {
			continue
		}
		seen[strings.TrimSuffix(name, " ###")] = true
		names = append(names, name)
		b.WriteString("\n" + randReq(r, name, false, r.IntN(10) == 0))
	}
	return b.String(), names
}

// randTasks is a tasks file of lines near OpenSpec's task line grammar:
// bullets and numbers, boxes blank, marked, ticked or malformed, text or
// none, CRLF endings, fences and headings between.
func randTasks(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	for i := r.IntN(8); i >= 0; i-- {
		switch r.IntN(6) {
		case 0:
			b.WriteString(pick("## 1. Group", "# Tasks", "```", "", "Some prose."))
		default:
			b.WriteString(pick("", "  ", "\t") + pick("-", "*", "+", "1.", "2)", "10.", "-") + pick(" ", "", "  "))
			b.WriteString(pick("[ ]", "[x]", "[X]", "[]", "[  ]", "[~]", "[ x ]", "[x", "[ ](link)", "[x](y)"))
			b.WriteString(pick(" ", "", "  ") + pick("1.1 Do a", "", "Do b  ", "2.3a Do c", "[x] nested"))
		}
		b.WriteString(pick("\n", "\n", "\r\n"))
	}
	return b.String()
}

func randDelta(r *rand.Rand, existing []string) string {
	pick := func() string {
		if len(existing) > 0 && r.IntN(10) < 7 {
			return existing[r.IntN(len(existing))]
		}
		return reqNames[r.IntN(len(reqNames))]
	}
	var b strings.Builder
	sections := []string{"ADDED", "ADDED", "MODIFIED", "MODIFIED", "REMOVED", "RENAMED", "Added"}
	for i, n := 0, 1+r.IntN(3); i < n; i++ {
		sec := sections[r.IntN(len(sections))]
		fmt.Fprintf(&b, "\n## %s Requirements\n\n", sec)
		for j, m := 0, 1+r.IntN(2); j < m; j++ {
			switch strings.ToUpper(sec) {
			case "REMOVED":
				if r.IntN(2) == 0 {
					fmt.Fprintf(&b, "- `### Requirement: %s`\n", pick())
				} else {
					fmt.Fprintf(&b, "### Requirement: %s\n", pick())
				}
			case "RENAMED":
				fmt.Fprintf(&b, "- FROM: `### Requirement: %s`\n", pick())
				if r.IntN(8) > 0 {
					fmt.Fprintf(&b, "- TO: `### Requirement: %s`\n", reqNames[r.IntN(len(reqNames))]+fmt.Sprint(r.IntN(3)))
				}
			case "MODIFIED":
				b.WriteString(randReq(r, pick(), r.IntN(10) < 7, r.IntN(4) == 0) + "\n")
			default:
				name := reqNames[r.IntN(len(reqNames))]
				if r.IntN(2) == 0 {
					name += fmt.Sprint(" ", r.IntN(5))
				}
				b.WriteString(randReq(r, name, false, r.IntN(4) == 0) + "\n")
			}
		}
	}
	return b.String()
}

// TestRandomParity validates, shows and archives random changes with
// both tools.
func TestRandomParity(t *testing.T) {
	t.Parallel() // beside the other suites running the CLI (batchWorkers bounds them)
	requireOpenSpec(t)
	// PARITY_SEED=N explores other samples; the default one is fixed.
	seed := uint64(7)
	if v := os.Getenv("PARITY_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	const n = 40
	r := rand.New(rand.NewPCG(seed, 11))
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		r := rand.New(rand.NewPCG(seed, 11))  // the same repository twice
		tr := rand.New(rand.NewPCG(seed, 13)) // tasks files, apart so the deltas stay as they were
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("cap-%02d", i)
			var names []string
			if r.IntN(6) > 0 {
				var spec string
				spec, names = randSpec(r, id)
				write(t, dir, "openspec/specs/"+id+"/spec.md", spec)
			}
			ch := fmt.Sprintf("openspec/changes/change-%02d/", i)
			write(t, dir, ch+"proposal.md", "## Why\nRandom.\n\n## What Changes\n- **"+id+":** Add what the delta says\n")
			write(t, dir, ch+"specs/"+id+"/spec.md", randDelta(r, names))
			if tr.IntN(4) > 0 {
				write(t, dir, ch+"tasks.md", randTasks(tr))
			}
		}
	}
	_ = r
	stampTree(t, a)
	stampTree(t, b)
	accepted, valid := 0, 0
	for i := 0; i < n; i++ {
		change := fmt.Sprintf("change-%02d", i)
		wantOut, _, _ := realOpenSpec(t, a, "validate", change, "--json")
		gotOut, _, _ := jjOpenSpec("--repo", b, "validate", change, "--json")
		if w, g := issuesOf(t, wantOut, true), issuesOf(t, gotOut, true); w != g {
			t.Errorf("validate %s:\nopenspec:\n%s\njj-openspec:\n%s\ndelta:\n%s", change, w, g, readFile(t, b, "openspec/changes/"+change+"/specs/cap-"+change[7:]+"/spec.md"))
		}
		// show CHANGE --json: the deltas as OpenSpec's ChangeParser reads them
		wantShow, _, wantShowCode := realOpenSpec(t, a, "show", change, "--json")
		gotShow, _, gotShowCode := jjOpenSpec("--repo", b, "show", change, "--json")
		if w, g := sameDoc(wantShow, a), sameDoc(gotShow, b); w != g || wantShowCode != gotShowCode {
			t.Errorf("show %s --json:\nopenspec:\n%s\njj-openspec:\n%s", change, w, g)
		}
		// instructions apply --change NAME --json: the tasks as apply reads them
		wantApply, _, wantApplyCode := realOpenSpec(t, a, "instructions", "apply", "--change", change, "--json")
		gotApply, _, gotApplyCode := jjOpenSpec("--repo", b, "instructions", "apply", "--change", change, "--json")
		if w, g := sameDoc(wantApply, a), sameDoc(gotApply, b); w != g || wantApplyCode != gotApplyCode {
			t.Errorf("instructions apply --change %s --json:\nopenspec:\n%s\njj-openspec:\n%s\ntasks.md:\n%q", change, w, g, readFile(t, b, "openspec/changes/"+change+"/tasks.md"))
		}
		_, wantErr, wantCode := realOpenSpec(t, a, "archive", change, "--yes")
		_, gotErr, gotCode := jjOpenSpec("--repo", b, "archive", change, "--yes")
		if wantCode == 0 {
			accepted++
		}
		if strings.HasPrefix(issuesOf(t, wantOut, true), "valid=true") {
			valid++
		}
		if (wantCode == 0) != (gotCode == 0) {
			t.Errorf("archive %s: openspec exit %d, jj-openspec exit %d\nopenspec: %s\njj-openspec: %s", change, wantCode, gotCode, wantErr, gotErr)
		}
	}
	// The sample must exercise both sides of each decision.
	if accepted == 0 || accepted == n || valid == 0 || valid == n {
		t.Fatalf("degenerate sample: %d of %d archived, %d valid", accepted, n, valid)
	}
	t.Logf("%d of %d archived, %d valid", accepted, n, valid)
	if d := diffTrees(tree(t, a), tree(t, b)); d != "" {
		t.Errorf("trees differ after archiving every change:\n%s", d)
	}
}

func issuesOf(t *testing.T, out string, openspecShape bool) string {
	t.Helper()
	var v struct {
		Valid  bool    `json:"valid"`
		Issues []issue `json:"issues"`
		Items  []struct {
			Valid  bool    `json:"valid"`
			Issues []issue `json:"issues"`
		} `json:"items"`
	}
	if err := jsonUnmarshal(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if openspecShape {
		if len(v.Items) != 1 {
			t.Fatalf("openspec validate --json: %s", out)
		}
		return fmt.Sprintf("valid=%v\n%s", v.Items[0].Valid, lines(v.Items[0].Issues))
	}
	return fmt.Sprintf("valid=%v\n%s", v.Valid, lines(v.Issues))
}

func readFile(t *testing.T, dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestRandomSpecValidateParity: random main specs (Purposes written,
// short, missing, placeholders, TBD/TODO markers, fenced; requirements
// sloppy or not, too long, outside their section, duplicated; delta
// headers where they do not belong) validated by the real CLI and by
// jj-openspec: the same document, text, stream and exit code.
func TestRandomSpecValidateParity(t *testing.T) {
	t.Parallel()
	requireOpenSpec(t)
	seed := uint64(3)
	if v := os.Getenv("PARITY_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	const n = 40
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		r := rand.New(rand.NewPCG(seed, 17))
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("cap-%02d", i)
			write(t, dir, "openspec/specs/"+id+"/spec.md", randMainSpec(r, id))
		}
	}
	invalid, warned := 0, 0
	for i := -1; i < n; i++ {
		id := fmt.Sprintf("cap-%02d", i)
		calls := [][]string{{"validate", id, "--json"}, {"validate", id}, {"validate", id, "--strict", "--type", "spec"}}
		if i < 0 { // every spec at once
			calls = [][]string{{"validate", "--specs", "--json"}, {"validate", "--all"}, {"validate", "--specs", "--strict", "--no-interactive"}}
		}
		for _, args := range calls {
			wantOut, wantErr, wantCode := realOpenSpec(t, a, args...)
			gotOut, gotErr, gotCode := jjOpenSpec(append([]string{"--repo", b}, args...)...)
			if w, g := sameDoc(wantOut, a)+wantErr, sameDoc(gotOut, b)+gotErr; w != g || wantCode != gotCode {
				t.Errorf("%v: openspec exit %d, jj-openspec exit %d\nopenspec:\n%s\njj-openspec:\n%s\nspec:\n%s", args, wantCode, gotCode, w, g, readFile(t, b, "openspec/specs/"+id+"/spec.md"))
			}
			if len(args) == 2 && i >= 0 {
				if wantCode != 0 {
					invalid++
				}
				if strings.Contains(wantErr, "[WARNING]") {
					warned++
				}
			}
		}
	}
	// The sample must exercise both sides of each decision.
	if invalid == 0 || invalid == n || warned == 0 || warned == n {
		t.Fatalf("degenerate sample: %d of %d invalid, %d with warnings", invalid, n, warned)
	}
}

// randMainSpec is a main spec that may break any of OpenSpec's spec rules.
func randMainSpec(r *rand.Rand, id string) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	fmt.Fprintf(&b, "# %s Specification\n\n", id)
	if r.IntN(12) > 0 {
		b.WriteString(pick("## Purpose\n", "## purpose\n", "## Purpose  \n"))
		b.WriteString(pick(
			"A capability generated at random to compare validate with the OpenSpec CLI.\n",
			"Too short.\n",
			"TBD - created by archiving change add-x. Update Purpose after archive.\n",
			"Written first.\nTBD - created by archiving change add-y. Update Purpose after archive.\n",
			"TBD\n", "TODO: write this purpose properly, it is long enough to pass the length check.\n",
			"Todo - later, but long enough to pass the brevity check of fifty characters.\n",
			"todo items are what this capability tracks, for every user of the system.\n",
			"TBDX is a name, not a marker, and this Purpose is long enough to pass.\n",
			"```\nTBD\n```\nA fenced marker does not count, and this is long enough to pass.\n",
			"\n", "Café — une capacité écrite en français, assez longue pour passer.\n"))
		b.WriteString("\n")
	}
	if r.IntN(10) == 0 {
		b.WriteString("### Requirement: Stray\nThe system SHALL be outside.\n\n")
	}
	if r.IntN(12) > 0 {
		b.WriteString("## Requirements\n")
		for i, k := 0, r.IntN(4); i < k; i++ {
			name := reqNames[r.IntN(len(reqNames))]
			if r.IntN(8) == 0 {
				fmt.Fprintf(&b, "\n### Requirement: %s\nThe system SHALL %s.\n\n#### Scenario: Ok\n- **WHEN** a\n- **THEN** b\n", name, strings.Repeat("do a great many things ", 25))
				continue
			}
			b.WriteString("\n" + randReq(r, name, false, r.IntN(3) == 0))
		}
		if r.IntN(10) == 0 {
			b.WriteString("\n## ADDED Requirements\n### Requirement: Delta\nThe system SHALL not be here.\n")
		}
	}
	if r.IntN(6) == 0 {
		b.WriteString("\n## Notes\nSomething after.\n")
	}
	return b.String()
}
