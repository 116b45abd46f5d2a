package manpage

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
)

// TestManPagesUpToDate fails when man/ differs from what the commands
// generate; run `make man` to regenerate.
func TestManPagesUpToDate(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	guides, err := Guides()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3+len(guides) || len(guides) < 5 {
		t.Fatalf("got %d pages and %d guides, want 3 pages besides the guides, and at least 5 guides", len(pages), len(guides))
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join("..", "..", "man", name))
		if err != nil {
			t.Errorf("man/%s: %v (run `make man`)", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("man/%s is out of date: run `make man`", name)
		}
	}
}

// TestManPageContents checks each page has the sections a user needs and
// that no command in it wraps.
func TestManPageContents(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	vars := workerVariables(t)
	for name, page := range pages {
		if !strings.HasSuffix(name, ".1") {
			continue // a guide: TestGuidesRender
		}
		for _, p := range checkPage(strings.TrimSuffix(name, ".1"), page, vars) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// TestCheckPageFails shows checkPage catches what it is for: a broken
// page is reported, each breakage by its own problem.
func TestCheckPageFails(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	good := pages["jj-kaisen.1"]
	vars := workerVariables(t)
	if p := checkPage("jj-kaisen", good, vars); len(p) != 0 {
		t.Fatalf("the real page has problems: %v", p)
	}
	long := "jj kaisen run plan.md --worker 'my-agent \"$SPECSTACK_BRIEF\"' --reviewer 'my-agent --review'"
	for _, tc := range []struct{ name, page, want string }{
		{"no EXAMPLES", strings.Replace(good, ".SH EXAMPLES", ".SH EXAMPLE", 1), "no EXAMPLES section"},
		{"no FILES", strings.Replace(good, ".SH FILES", ".SH PATHS", 1), "no FILES section"},
		{"variable undocumented", strings.ReplaceAll(good, "SPECSTACK_DIFF", "SPECSTACK_DIF"), "SPECSTACK_DIFF"},
		{"config key missing", strings.ReplaceAll(good, "[kaisen] test\\-map", "[kaisen] map"), "[kaisen] test-map"},
		{"exit code missing", strings.Replace(good, "8\tgate\\-failed\t", "8\tgate\t", 1), "exit code 8"},
		{"long no-fill line", strings.Replace(good, ".EX\njj kaisen resume\n", ".EX\n"+escape(long)+"\n", 1), "wraps"},
		{"example in filled text", strings.Replace(good, ".EX\njj kaisen resume\njj kaisen abort \\-\\-yes\n.EE\n", ".PP\njj kaisen resume\n", 1), "not in a no-fill block"},
		{"alias in filled text", strings.Replace(good, ".EX\njj config set", ".PP\njj config set", 1), "not in a no-fill block"},
		{"no tbl mark", strings.TrimPrefix(good, "'\\\" t\n"), "tbl"},
	} {
		if tc.page == good {
			t.Fatalf("%s: the replacement changed nothing", tc.name)
		}
		problems := checkPage("jj-kaisen", tc.page, vars)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
			t.Errorf("%s: problems %q, want one mentioning %q", tc.name, problems, tc.want)
		}
	}
}

// noFillWidth is the longest line a no-fill block may hold: man indents
// the text 7 columns, and an 80-column terminal must show it unwrapped.
const noFillWidth = 72

// checkPage returns what is wrong with binary's man page.
func checkPage(binary, page string, workerVars []string) []string {
	var problems []string
	sections := []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "CONFIGURATION", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SHELL COMPLETION", "AGENTS", "SEE ALSO"}
	if binary == "jj-kaisen" {
		sections = append(sections, "PLAN FORMAT", "WORKER PROTOCOL")
	}
	body := map[string][]string{}
	cur := ""
	lines := strings.Split(page, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, ".SH ") {
			cur = strings.Trim(l[4:], `"`)
		}
		body[cur] = append(body[cur], l)
	}
	for _, s := range sections {
		if _, ok := body[s]; !ok {
			problems = append(problems, "no "+s+" section")
		}
	}
	text := plain(page)
	for _, k := range config.Keys {
		if key := "[" + k.Section + "] " + k.Name; !strings.Contains(text, "\n.TP\n"+key+" = ") {
			problems = append(problems, "CONFIGURATION lacks "+key)
		}
	}
	if binary == "jj-kaisen" {
		protocol := plain(strings.Join(body["WORKER PROTOCOL"], "\n"))
		for _, v := range workerVars {
			if !strings.Contains(protocol, ".TP\n"+v+"\n") {
				problems = append(problems, "WORKER PROTOCOL does not describe "+v)
			}
		}
		for _, w := range []string{"Status: DONE", "DONE_WITH_CONCERNS", "BLOCKED", "NEEDS_CONTEXT", `"severity"`, "critical", "important", "suggestion", "cannot-verify", "### Task 1:", "**Files:**"} {
			if !strings.Contains(text, w) {
				problems = append(problems, "the report, findings or plan format lacks "+w)
			}
		}
	}
	exit := strings.Join(body["EXIT STATUS"], "\n")
	if !strings.Contains(exit, ".TS\n") {
		problems = append(problems, "EXIT STATUS is not a table")
	}
	if strings.Contains(page, "\n.TS\n") && !strings.HasPrefix(page, "'\\\" t\n") {
		problems = append(problems, `a table without the '\" t mark: man would not run tbl`)
	}
	for _, e := range exitcode.Table {
		if !strings.Contains(plain(exit), "\n"+itoa(int(e.Code))+"\t"+e.Name+"\t") {
			problems = append(problems, "EXIT STATUS lacks exit code "+itoa(int(e.Code))+" "+e.Name)
		}
	}
	// No-fill blocks: no line wraps on an 80-column terminal. EXAMPLES and
	// every alias command: commands are in no-fill blocks.
	noFill, section := false, ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, ".SH "):
			section = strings.Trim(l[4:], `"`)
		case l == ".EX" || l == ".nf":
			noFill = true
			continue
		case l == ".EE" || l == ".fi":
			noFill = false
			continue
		}
		p := plain(l)
		if noFill && len([]rune(p)) > noFillWidth {
			problems = append(problems, "line "+itoa(i+1)+" wraps on an 80-column terminal (over "+itoa(noFillWidth)+" columns in a no-fill block): "+p)
		}
		command := strings.HasPrefix(p, "jj ") || strings.HasPrefix(p, "gh ") || strings.HasPrefix(p, binary+" ")
		if !noFill && (strings.Contains(p, "jj config set") || section == "EXAMPLES" && command) {
			problems = append(problems, "line "+itoa(i+1)+" is a command not in a no-fill block (.EX/.EE), so it wraps: "+p)
		}
	}
	return problems
}

var fontRe = regexp.MustCompile(`\\f[BIRP]`)

// plain undoes the roff escapes the pages use.
func plain(s string) string {
	s = fontRe.ReplaceAllString(s, "")
	return strings.NewReplacer(`\-`, "-", `\e`, `\`, `\&`, "").Replace(s)
}

func itoa(n int) string { return strconv.Itoa(n) }

var workerVarRe = regexp.MustCompile(`SPECSTACK_[A-Z_]+[A-Z]`)

// workerVariables lists the SPECSTACK_* variables the engine and the step
// commands give workers, from their source: a variable added there must
// be described in jj-kaisen's WORKER PROTOCOL.
func workerVariables(t *testing.T) []string {
	t.Helper()
	var vars []string
	for _, dir := range []string{"engine", "kaisencli"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("read ../%s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range workerVarRe.FindAllString(string(src), -1) {
				// SPECSTACK_CRASH_AT and SPECSTACK_PAUSE_AT are the tests' crash
				// injection and hold, not the protocol.
				// SPECSTACK_WORKSPACES is read from the caller (ENVIRONMENT).
				if v != "SPECSTACK_CRASH_AT" && v != "SPECSTACK_PAUSE_AT" && v != "SPECSTACK_WORKSPACES" && !slices.Contains(vars, v) {
					vars = append(vars, v)
				}
			}
		}
	}
	if len(vars) < 8 {
		t.Fatalf("found only %v in the engine's source", vars)
	}
	return vars
}
