package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/stackcli"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestSkillGuides runs every command each binary's `skill` guide quotes, so
// the guides never drift from the binaries. For each guide it builds a
// testscript: the scratch repository of testdata/skill/BINARY.txtar, the
// files the guide shows (a fenced block whose info string names a file,
// such as "```markdown plan.md"), then every line of every ```sh block, in
// order, each run by sh -c in the repository and required to exit 0 (or
// the N of a trailing "# exits N"), its stdout valid JSON when it asks for
// --json. gh-specstack's lines run under `fakegh run`, through the real gh
// when it is on PATH. Between jj-kaisen's steps the test plays the
// subagents: before each `collect --wave N` it writes each task's file and
// report, and after a failed review a fix. Every JSON key the guide names
// (a backticked snake_case or camelCase word) must occur in the JSON its
// commands printed.
func TestSkillGuides(t *testing.T) {
	testenv.RequireJJ(t)
	_, ghErr := xec.LookPath("gh")
	if ghErr != nil && os.Getenv("REQUIRE_GH") != "" {
		t.Fatal("gh not on PATH and REQUIRE_GH is set: run `make test`, which provisions it")
	}
	dir := t.TempDir()
	for _, s := range []cliapp.Spec{kaisencli.Spec(), openspeccli.Spec(), stackcli.Spec()} {
		script, err := guideScript(s, ghErr == nil)
		if err != nil {
			t.Fatalf("%s skill: %v", s.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".txtar"), script, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Params(t, dir)
	p.Cmds = map[string]func(*testscript.TestScript, bool, []string){
		"subagents":     subagents,
		"review-failed": reviewFailed,
		"json":          validJSON,
		"guide-keys":    guideKeys,
	}
	testscript.Run(t, p)
}

// TestGuideScriptFails shows a guide line that fails would fail the test:
// the generated script runs it with exec, which fails on a non-zero exit.
func TestGuideScriptFails(t *testing.T) {
	s := kaisencli.Spec()
	s.Skill = "---\nname: jj-kaisen\ndescription: d\n---\n\n```sh\njj kaisen no-such-verb\njj kaisen plan x.md # exits 6\n```\n"
	script, err := guideScript(s, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nexec sh -c 'jj kaisen no-such-verb'\n", "\nexec exits 6 sh -c 'jj kaisen plan x.md'\n"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	for _, bad := range []string{"no front matter", "---\nname: jj-kaisen\n---\n", "---\nname: other\ndescription: d\n---\n```sh\nx\n```\n", "---\nname: jj-kaisen\ndescription: d\n---\nno commands\n"} {
		s.Skill = bad
		if _, err := guideScript(s, true); err == nil {
			t.Errorf("guide %q accepted", bad)
		}
	}
}

var (
	frontMatterRe = regexp.MustCompile(`\A---\nname: (\S+)\ndescription: (.+)\n---\n`)
	fenceRe       = regexp.MustCompile("(?ms)^```([a-z]*)( [^\n]+)?\n(.*?)^```\n")
	exitsRe       = regexp.MustCompile(`\s+# exits (\d+)$`)
	jsonKeyRe     = regexp.MustCompile("`([a-z]+(?:_[a-z]+|[A-Z][a-z]+)+)`")
	waveRe        = regexp.MustCompile(`\b(fan-out|collect) --wave (\d+)\b`)
	findingsRe    = regexp.MustCompile(`\breview record --task (\d+) --findings\b`)
)

// guideScript turns s's guide into a testscript (see TestSkillGuides).
func guideScript(s cliapp.Spec, haveGH bool) ([]byte, error) {
	m := frontMatterRe.FindStringSubmatch(s.Skill)
	if m == nil || m[1] != s.Name || len(m[2]) > 1024 {
		return nil, fmt.Errorf("the guide must start with front matter naming %s and a description under 1024 characters", s.Name)
	}
	fixture, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "skill", s.Name+".txtar"))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Write(fixture.Comment)
	b.WriteString("\n# the commands of `" + s.Name + " skill`\n")
	commands := 0
	for _, f := range fenceRe.FindAllStringSubmatch(s.Skill, -1) {
		lang, name, body := f[1], strings.TrimSpace(f[2]), f[3]
		if name != "" {
			fixture.Files = append(fixture.Files, txtar.File{Name: path.Join("repo", name), Data: []byte(body)})
			continue
		}
		if lang != "sh" {
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			commands++
			exec := "exec "
			if e := exitsRe.FindStringSubmatch(line); e != nil {
				line = strings.TrimSpace(line[:len(line)-len(e[0])])
				exec = "exec exits " + e[1] + " "
			}
			if w := waveRe.FindStringSubmatch(line); w != nil && w[1] == "collect" {
				b.WriteString("subagents " + w[2] + "\n")
			}
			cmd := "sh -c " + quote(line)
			if s.Name == "gh-specstack" {
				if !haveGH {
					// without gh: the binary itself, and no extension to install
					if strings.Contains(line, "install-extension") {
						continue
					}
					cmd = "sh -c " + quote(strings.Replace(line, "gh specstack ", "gh-specstack ", 1))
				}
				cmd = "fakegh run -- " + cmd
			}
			b.WriteString(exec + cmd + "\n")
			if strings.Contains(line, "--json") && exec == "exec " {
				b.WriteString(strings.TrimSpace("json "+strings.Join(openSpecKeys(line), " ")) + "\n")
			}
			if w := waveRe.FindStringSubmatch(line); w != nil && w[1] == "fan-out" {
				b.WriteString("cp stdout $WORK/.fanout-" + w[2] + ".json\n")
			}
			if f := findingsRe.FindStringSubmatch(line); f != nil {
				b.WriteString("review-failed " + f[1] + "\n")
			}
		}
	}
	if commands == 0 {
		return nil, fmt.Errorf("the guide quotes no command in a ```sh block")
	}
	var keys []string
	for _, k := range jsonKeyRe.FindAllStringSubmatch(s.Skill, -1) {
		if !slices.Contains(keys, k[1]) && !unscriptedKeys[k[1]] {
			keys = append(keys, k[1])
		}
	}
	if len(keys) > 0 {
		b.WriteString("guide-keys " + strings.Join(keys, " ") + "\n")
	}
	fixture.Comment = []byte(b.String())
	return txtar.Format(fixture), nil
}

// unscriptedKeys are JSON keys a guide names that its scratch scenario
// does not produce.
var unscriptedKeys = map[string]bool{
	"merge_instructions": true, // link --json without stacked pull requests (stack_link.txtar checks it)
}

// openSpecKeys returns the camelCase keys line's JSON may hold: those of
// an OpenSpec-parity verb, which prints what the OpenSpec CLI prints.
// Every other key of every guide's JSON is snake_case.
func openSpecKeys(line string) []string {
	switch {
	case strings.HasPrefix(line, "jj openspec list "):
		return []string{"completedTasks", "totalTasks", "lastModified", "requirementCount"}
	case strings.HasPrefix(line, "jj openspec validate "):
		return []string{"durationMs", "byType"}
	case strings.HasPrefix(line, "jj openspec archive ") && !strings.Contains(line, "--dry-run"):
		return []string{"archivedAs", "specsUpdated"}
	}
	return nil
}

// quote quotes s for testscript: single quotes, with ' doubled, and no
// variable expansion.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// subagents WAVE plays the subagents of jj-kaisen's wave WAVE, from the
// fan-out printed before: a task not yet worked on writes task-N.txt and
// "Status: DONE" to its report; one whose review failed appends a fix.
func subagents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: subagents WAVE")
	}
	var tasks []struct {
		Task   int    `json:"task"`
		Path   string `json:"path"`
		Report string `json:"report"`
	}
	work := ts.Getenv("WORK")
	data, err := os.ReadFile(filepath.Join(work, ".fanout-"+args[0]+".json"))
	ts.Check(err)
	ts.Check(json.Unmarshal(data, &tasks))
	if len(tasks) == 0 {
		ts.Fatalf("fan-out of wave %s listed no task", args[0])
	}
	for _, t := range tasks {
		n := strconv.Itoa(t.Task)
		worked, fix := filepath.Join(work, ".worked-"+n), filepath.Join(work, ".fix-"+n)
		line := ""
		switch {
		case !exists(worked):
			line = "task " + n + "\n"
			ts.Check(os.WriteFile(worked, nil, 0o644))
		case exists(fix):
			line = "fixed\n"
			ts.Check(os.Remove(fix))
		default:
			continue
		}
		appendFile(ts, filepath.Join(t.Path, "task-"+n+".txt"), line)
		appendFile(ts, t.Report, "Status: DONE\n")
	}
}

// review-failed TASK: when the review just recorded failed, the task's
// subagent fixes it before the next collect.
func reviewFailed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: review-failed TASK")
	}
	var v struct {
		Passed *bool `json:"passed"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &v))
	if v.Passed == nil {
		ts.Fatalf("review record printed no \"passed\"")
	}
	if !*v.Passed {
		ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), ".fix-"+args[0]), nil, 0o644))
	}
}

// json [KEY...]: the last command's stdout is one JSON document whose
// keys are snake_case but for the KEYs given (see jsonkeys); its keys are
// noted for guide-keys.
func validJSON(ts *testscript.TestScript, neg bool, args []string) {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil || neg {
		ts.Fatalf("stdout is not JSON (%v):\n%s", err, ts.ReadFile("stdout"))
	}
	if bad := notSnake(v, args); len(bad) > 0 {
		ts.Fatalf("JSON keys not snake_case: %s", strings.Join(bad, ", "))
	}
	keys := objectKeys(v)
	appendFile(ts, filepath.Join(ts.Getenv("WORK"), ".json-keys"), strings.Join(keys, "\n")+"\n")
}

// guide-keys KEY...: every key occurred in some JSON the guide's commands
// printed.
func guideKeys(ts *testscript.TestScript, neg bool, args []string) {
	data, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), ".json-keys"))
	ts.Check(err)
	seen := strings.Split(string(data), "\n")
	var missing []string
	for _, k := range args {
		if !slices.Contains(seen, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 || neg {
		ts.Fatalf("the guide names JSON keys no command printed: %v", missing)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func appendFile(ts *testscript.TestScript, p, s string) {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	_, err = f.WriteString(s)
	ts.Check(err)
	ts.Check(f.Close())
}
