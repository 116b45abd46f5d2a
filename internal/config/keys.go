package config

import (
	"fmt"
	"strings"
)

// Key documents one configuration key: the man pages' CONFIGURATION
// section and the unknown-key error are rendered from Keys, and a test
// keeps Keys equal to the keys Load accepts.
type Key struct {
	Section string // the [table]
	Name    string
	Example string // a TOML value
	Binary  string // which binary reads it
	Meaning string
}

// Keys lists every key, in the order of Config's fields.
var Keys = []Key{
	{"worker", "command", `"my-agent --task-file \"$SPECSTACK_BRIEF\""`, "jj-kaisen",
		"implementer and fixer: an agent preset (claude, codex, or one of [worker.presets]) or a command run by sh -c in the task's workspace (--worker wins)"},
	{"worker", "reviewer", `"my-reviewer"`, "jj-kaisen",
		"reviewer command; writes findings to $SPECSTACK_FINDINGS (--reviewer wins)"},
	{"worker", "test", `"go test ./..."`, "jj-kaisen",
		"the full test command: per task in its workspace unless [kaisen] test-map is set, and once in @ at the end (--test wins)"},
	{"worker", "timeout", `"30m"`, "jj-kaisen",
		"limit per worker, a Go duration (--timeout wins; default 1h)"},
	{"worker", "max-cost", `5.00`, "all three",
		"stop starting agent jobs once the run's recorded agent cost reaches this many US dollars; 0 for no limit (--max-cost wins)"},
	{"worker", "presets", `{ gemini = { program = "gemini", args = ["--yolo"], output = "text" } }`, "all three",
		"agent presets by name (program, args, resume-args, review-args, output, allow, env); claude and codex are built in, and naming one here amends it (e.g. its allow list)"},
	{"kaisen", "max-parallel", `4`, "jj-kaisen",
		"workers at once (default: all tasks of a wave)"},
	{"kaisen", "workspaces-dir", `"/var/tmp/jj-workspaces"`, "jj-kaisen",
		"absolute folder the task workspaces are made under ($SPECSTACK_WORKSPACES wins; default $TMPDIR/jj-workspaces)"},
	{"kaisen", "heartbeat", `"30s"`, "jj-kaisen",
		"how often a run whose progress goes to a pipe names its running tasks, a Go duration; 0s for none (--heartbeat wins; default 30s)"},
	{"kaisen", "test-map", `{ "src/**" = "go test ./..." }`, "jj-kaisen",
		"path glob to the test command covering it; a task runs the commands whose glob matches a file it changed"},
	{"review", "min-confidence", `80`, "jj-kaisen",
		"a reviewer's confidence score (0-100) below it blocks the run; 0 disables the gate (--confidence-override \"REASON\" passes anyway)"},
	{"openspec", "min-group-tasks", `2`, "jj-openspec",
		"unchecked tasks a group needs before tasks recommends fan-out (default 2)"},
	{"openspec", "verify", `["make test"]`, "jj-openspec",
		"apply's verify gate: commands run in order in @ on the integrated change (--verify adds to them)"},
	{"openspec", "risk-max-files", `20`, "jj-openspec",
		"apply routes a change whose tasks name more files as risky: --no-verify refused, a reviewer required (default 0: no limit)"},
	{"openspec", "risk-max-modules", `4`, "jj-openspec",
		"apply routes a change whose tasks name files in more folders as risky, like risk-max-files (default 0: no limit)"},
	{"openspec", "risk-min-group-tasks", `3`, "jj-openspec",
		"apply fans out a risky change only into groups with at least this many unchecked tasks (default 3, never below min-group-tasks)"},
	{"openspec", "tracker", `"my-tracker-update"`, "jj-openspec",
		"run after apply opens the pull request, with SPECSTACK_CHANGE, SPECSTACK_BOOKMARK and SPECSTACK_PR_URL set"},
	{"openspec", "pr", `false`, "jj-openspec",
		"false: apply pushes the bookmark and opens no pull request, as --no-pr does (default true)"},
	{"stack", "human-label", `"ready-for-human"`, "gh-specstack",
		"label of tickets that need a person; they are excluded with everything depending on them (--human-label wins)"},
	{"stack", "stack-mode", `"native"`, "gh-specstack",
		"native (a GitHub stack) or chain (a plain --base chain) (--stack-mode wins)"},
	{"github", "timeout", `"30s"`, "gh-specstack",
		"limit per GitHub request, a Go duration (GH_SPECSTACK_TIMEOUT wins; default 30s)"},
	{"executor", "kind", `"github-actions"`, "jj-kaisen",
		"where implementers run: local (default) or github-actions, a runner per task through the worker workflow (--executor wins)"},
	{"executor", "workflow", `"specstack-worker.yml"`, "jj-kaisen",
		"the worker workflow's file under .github/workflows (default specstack-worker.yml; gh specstack workflow init writes it)"},
	{"executor", "ref", `"main"`, "jj-kaisen",
		"the branch whose copy of the workflow runs (default: the repository's default branch)"},
	{"executor", "runs-on", `["ubuntu-latest"]`, "gh-specstack",
		"runner labels gh specstack workflow init writes (--runs-on wins; default ubuntu-latest)"},
	{"executor", "max-parallel", `8`, "all three",
		"runs at once with github-actions: jj kaisen's tasks (default [kaisen] max-parallel), apply's groups, gh specstack run's tickets in parallel order (--max-parallel wins)"},
	{"executor", "poll", `"5s"`, "jj-kaisen",
		"wait between two looks at a run, a Go duration (default 5s; unchanged runs cost no rate limit)"},
}

// unknownKey explains an unknown key: the known keys of its section (or
// the known sections), and where every key is documented.
func unknownKey(path, key string) error {
	section, _, _ := strings.Cut(key, ".")
	var known, sections []string
	for _, k := range Keys {
		if k.Section == section {
			known = append(known, k.Name)
		}
		if s := "[" + k.Section + "]"; len(sections) == 0 || sections[len(sections)-1] != s {
			sections = append(sections, s)
		}
	}
	hint := "known sections: " + strings.Join(sections, ", ")
	if len(known) > 0 {
		hint = fmt.Sprintf("known keys of [%s]: %s", section, strings.Join(known, ", "))
	}
	return fmt.Errorf("config %s: unknown key %q (%s; every key is described under CONFIGURATION in man jj-kaisen, jj-openspec or gh-specstack)", path, key, hint)
}
