package kaisencli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestStepJobEnvMatchesDriver: a worker started from what `fan-out --json`
// prints sees exactly the environment the driver gives it, variable by
// variable (step mode once rebuilt the environment itself and lost
// SPECSTACK_ARTIFACTS, SPECSTACK_PIDFILE and SPECSTACK_FINDINGS).
func TestStepJobEnvMatchesDriver(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", repo}}); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(plan, []byte("# p\n\n### Task 1: one\n**Files:** `a.txt`\n\n### Task 2: two\n**Files:** `b.txt`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	worker := `env | sort > "$SPECSTACK_ARTIFACTS/env-$SPECSTACK_TASK"; echo "$SPECSTACK_TASK" > "t$SPECSTACK_TASK.txt"; echo "Status: DONE" > "$SPECSTACK_REPORT"`
	if code, _, stderr := kaisen(t, "-R", repo, "start", plan, "--yes", "--skip-review", "--worker", worker); code != 0 {
		t.Fatalf("start: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := kaisen(t, "-R", repo, "fan-out", "--wave", "1", "--json")
	if code != 0 {
		t.Fatalf("fan-out: exit %d: %s", code, stderr)
	}
	var jobs []engine.TaskJob
	if err := json.Unmarshal([]byte(stdout), &jobs); err != nil {
		t.Fatalf("fan-out --json: %v\n%s", err, stdout)
	}
	if len(jobs) != 2 {
		t.Fatalf("fan-out printed %d jobs, want 2:\n%s", len(jobs), stdout)
	}
	// Step mode: start each job as an agent would, from the JSON alone.
	var envFiles []string
	for _, tj := range jobs {
		j := tj.Job
		if len(j.Argv) == 0 || j.Dir != tj.Path {
			t.Fatalf("task %d: job %+v: want the worker's argv, run in the workspace %s", tj.Task, j, tj.Path)
		}
		var env []string
		for k, v := range j.Env {
			env = append(env, k+"="+v)
		}
		if err := xec.Run(t.Context(), xec.Cmd{Name: j.Argv[0], Args: j.Argv[1:], Dir: j.Dir, Env: env, Setpgid: true}); err != nil {
			t.Fatalf("task %d: step-mode worker: %v", tj.Task, err)
		}
		f := filepath.Join(j.Env["SPECSTACK_ARTIFACTS"], "env-"+j.Env["SPECSTACK_TASK"])
		if err := os.Rename(f, f+".step"); err != nil {
			t.Fatal(err)
		}
		envFiles = append(envFiles, f)
	}
	// Driver mode runs the same tasks in the same workspaces.
	if code, _, stderr := kaisen(t, "-R", repo, "resume"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	for _, f := range envFiles {
		step, driver := readEnv(t, f+".step"), readEnv(t, f)
		for _, k := range []string{"SPECSTACK_ARTIFACTS", "SPECSTACK_PIDFILE", "SPECSTACK_FINDINGS", "SPECSTACK_WORKSPACE", "SPECSTACK_BRIEF", "SPECSTACK_REPORT", "SPECSTACK_TASK", "SPECSTACK_ROLE"} {
			if _, ok := driver[k]; !ok {
				t.Errorf("%s: the driver's worker lacks %s", f, k)
			}
		}
		for k, v := range driver {
			if sv, ok := step[k]; !ok {
				t.Errorf("%s: %s=%q reaches the driver's worker but not the step-mode one", f, k, v)
			} else if sv != v {
				t.Errorf("%s: %s is %q in driver mode, %q in step mode", f, k, v, sv)
			}
		}
		for k, v := range step {
			if _, ok := driver[k]; !ok {
				t.Errorf("%s: %s=%q reaches the step-mode worker but not the driver's", f, k, v)
			}
		}
	}
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestStepFixerJob: a failed `review record` hands step mode the fixer job
// the driver would run: the fixer role, the findings to read, in the task's
// workspace.
func TestStepFixerJob(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if _, err := xec.Output(t.Context(), xec.Cmd{Name: "jj", Args: []string{"git", "init", "--no-colocate", repo}}); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(plan, []byte("# p\n\n### Task 1: one\n**Files:** `a.txt`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(findings, []byte(`[{"severity": "critical", "message": "wrong", "file": "a.txt"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	worker := `echo one > a.txt; echo "Status: DONE" > "$SPECSTACK_REPORT"`
	steps := [][]string{
		{"start", plan, "--yes", "--worker", worker},
		{"fan-out", "--wave", "1", "--json"},
	}
	var stdout string
	for _, args := range steps {
		var code int
		var stderr string
		if code, stdout, stderr = kaisen(t, append([]string{"-R", repo}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	var jobs []engine.TaskJob
	if err := json.Unmarshal([]byte(stdout), &jobs); err != nil || len(jobs) != 1 {
		t.Fatalf("fan-out --json: %v\n%s", err, stdout)
	}
	j := jobs[0].Job
	var env []string
	for k, v := range j.Env {
		env = append(env, k+"="+v)
	}
	if err := xec.Run(t.Context(), xec.Cmd{Name: j.Argv[0], Args: j.Argv[1:], Dir: j.Dir, Env: env, Setpgid: true}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"collect", "--wave", "1"}, {"review", "record", "--task", "1", "--findings", findings, "--json"}} {
		var code int
		var stderr string
		if code, stdout, stderr = kaisen(t, append([]string{"-R", repo}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	var v engine.Verdict
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("review record --json: %v\n%s", err, stdout)
	}
	if v.Passed || v.Job == nil {
		t.Fatalf("a critical finding: verdict %+v; want a failed review with the fixer's job", v)
	}
	fj := v.Job
	if fj.Dir != jobs[0].Path || len(fj.Argv) == 0 || fj.Env["SPECSTACK_ROLE"] != engine.RoleFixer || fj.Env["SPECSTACK_FINDINGS"] != v.Findings || fj.Env["SPECSTACK_TASK"] != "1" {
		t.Errorf("fixer job %+v: want the fixer role, findings %s, task 1, in %s", fj, v.Findings, jobs[0].Path)
	}
	// Everything else is the implementer's protocol unchanged.
	for k, want := range j.Env {
		if k == "SPECSTACK_ROLE" || k == "SPECSTACK_FINDINGS" {
			continue
		}
		if got := fj.Env[k]; got != want {
			t.Errorf("fixer job %s=%q, the implementer's is %q", k, got, want)
		}
	}
}
