package actionsworker

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rhysd/actionlint"

	"github.com/specstack/specstack/internal/xec"
)

// lint runs actionlint over a workflow, with shellcheck over its scripts
// when shellcheck is on PATH (REQUIRE_SHELLCHECK=1 makes its absence a
// failure), and returns its findings.
func lint(t *testing.T, content []byte) []string {
	t.Helper()
	sc, err := xec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("REQUIRE_SHELLCHECK") != "" {
			t.Fatal("shellcheck is not on PATH (REQUIRE_SHELLCHECK is set)")
		}
		t.Log("shellcheck is not on PATH: the scripts are not shellchecked")
		sc = ""
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{Shellcheck: sc, Color: actionlint.ColorOptionKindNever})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(Path, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	var res []string
	for _, e := range errs {
		res = append(res, e.Error())
	}
	return res
}

func TestRenderedWorkflowsLintClean(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want []string // strings the workflow holds
	}{
		{"command", Options{Worker: `sh "$HOME/bin/my worker.sh" --flag 'x'`},
			[]string{`SPECSTACK_WORKER: "sh \"$HOME/bin/my worker.sh\" --flag 'x'"`, `sh -c "$SPECSTACK_WORKER" </dev/null`, "runs-on: \"ubuntu-latest\""}},
		{"claude", Options{Worker: "claude", Timeout: 30 * time.Minute},
			[]string{"npm install --global @anthropic-ai/claude-code@2.1.328", "ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}",
				"claude -p --output-format json --permission-mode acceptEdits", "timeout-minutes: 45", `DISABLE_AUTOUPDATER: "1"`}},
		{"codex", Options{Worker: "codex", RunsOn: []string{"self-hosted", "linux"}},
			[]string{"npm install --global @openai/codex@0.169.0", "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}",
				`--cd "$SPECSTACK_WORKSPACE" --output-last-message "$spec/last-message.md" - < "$SPECSTACK_BRIEF"`, "      - \"self-hosted\"\n      - \"linux\"\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wf, err := Render(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if findings := lint(t, wf); len(findings) > 0 {
				t.Errorf("actionlint:\n%s\n\n%s", strings.Join(findings, "\n"), wf)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(wf), w) {
					t.Errorf("the workflow lacks %q:\n%s", w, wf)
				}
			}
			// Every input reaches the worker step through env only:
			// no script line renders an expression.
			_, script, _ := strings.Cut(string(wf), "run: |\n")
			if strings.Contains(script, "${{") {
				t.Errorf("the worker step's script renders an expression:\n%s", script)
			}
		})
	}
}

// TestLintCatchesAFinding: the lint above can fail.
func TestLintCatchesAFinding(t *testing.T) {
	wf, err := Render(Options{Worker: "sh w.sh"})
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(wf), "${{ inputs."+InputBrief+" }}", "${{ inputs.nope }}", 1)
	if findings := lint(t, []byte(bad)); len(findings) == 0 || !strings.Contains(strings.Join(findings, "\n"), "nope") {
		t.Errorf("an undefined input: findings %q", findings)
	}
	if _, err := xec.LookPath("shellcheck"); err != nil {
		return
	}
	// With shellcheck, a script's unquoted variable is a finding too.
	bad = strings.Replace(string(wf), `mkdir -p "$spec/artifacts"`, `mkdir -p $spec/artifacts`, 1)
	if findings := lint(t, []byte(bad)); len(findings) == 0 || !strings.Contains(strings.Join(findings, "\n"), "SC2086") {
		t.Errorf("an unquoted variable: findings %q", findings)
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, o := range []Options{
		{Worker: "  "},
		{Worker: "echo ${{ secrets.X }}"},
		{Worker: "sh w.sh", RunsOn: []string{""}},
	} {
		var we *WorkerError
		if _, err := Render(o); !errors.As(err, &we) {
			t.Errorf("Render(%+v) = %v, want a *WorkerError", o, err)
		}
	}
}

func TestWrite(t *testing.T) {
	root := t.TempDir()
	a, b := []byte("a\n"), []byte("b\n")
	if w, err := Write(root, a, false); err != nil || w.Unchanged || w.Path != Path {
		t.Fatalf("first write: %+v, %v", w, err)
	}
	if w, err := Write(root, a, false); err != nil || !w.Unchanged {
		t.Fatalf("same content: %+v, %v", w, err)
	}
	var ee *ExistsError
	if _, err := Write(root, b, false); !errors.As(err, &ee) {
		t.Fatalf("other content without force: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, Path)); string(got) != "a\n" {
		t.Fatalf("a refused write changed the file: %q", got)
	}
	if _, err := Write(root, b, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, Path)); string(got) != "b\n" {
		t.Fatalf("forced write: %q", got)
	}
}
