package forge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

// TestGitHubProgramMissing: without gh-specstack beside the executable or
// on PATH, publishing is refused as a missing tool (exit 7) saying what
// to do, instead of a bare "executable file not found".
func TestGitHubProgramMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Publish(t.Context(), t.TempDir(), "feat/x")
	if exitcode.Of(err) != exitcode.Missing {
		t.Fatalf("exit code %d, want %d (missing tool): %v", exitcode.Of(err), exitcode.Missing, err)
	}
	for _, want := range []string{"gh-specstack is not installed", "--no-push"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
}

// TestGitHubProgramFailure: gh-specstack's own exit code and last line of
// stderr come back, and its JSON report is decoded on success; the body
// travels on standard input, never in an argument.
func TestGitHubProgramFailure(t *testing.T) {
	bin := t.TempDir()
	script := `#!/bin/sh
for a in "$@"; do case "$a" in *secret*) echo "body in argv" >&2; exit 9;; esac; done
body=$(cat)
case "$*" in
*" pr "*) [ "$body" = "the secret body" ] || { echo "stdin: $body" >&2; exit 9; }
  echo '{"number": 4, "url": "https://example.com/pull/4", "action": "created"}';;
*" push "*) echo "progress line" >&2; printf 'gh-specstack: jj git push: exit status 1: Error: origin has feat/x at another commit\nHint: fetch first\n' >&2; exit 5;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "gh-specstack"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := Publish(t.Context(), t.TempDir(), "feat/x")
	if exitcode.Of(err) != 5 || err == nil || err.Error() != "gh specstack push: jj git push: exit status 1: Error: origin has feat/x at another commit\nHint: fetch first" {
		t.Errorf("push: exit %d, %v; want exit 5 with gh-specstack's message", exitcode.Of(err), err)
	}
	pr, err := UpsertPR(t.Context(), t.TempDir(), NewPull{Title: "t", Head: "feat/x", Body: "the secret body"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 4 || pr.Action != "created" || pr.URL != "https://example.com/pull/4" {
		t.Errorf("pr = %+v", pr)
	}
}

// TestLinkWaitsForLock: a stack registration that finds gh-specstack's
// lock held (exit 3: another stack of the pipeline, a person's run) tries
// again instead of failing the pipeline.
func TestLinkWaitsForLock(t *testing.T) {
	bin := t.TempDir()
	tries := filepath.Join(bin, "tries")
	script := `#!/bin/sh
echo x >> "` + tries + `"
if [ "$(wc -l < "` + tries + `")" -lt 3 ]; then echo "gh-specstack: ledger is locked by pid 1" >&2; exit 3; fi
echo '{"stack_mode": "native", "stack": 7, "stack_action": "created"}'
`
	if err := os.WriteFile(filepath.Join(bin, "gh-specstack"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	l, err := LinkStack(t.Context(), t.TempDir(), []string{"feat/a", "feat/b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Stack != 7 || l.StackAction != "created" {
		t.Errorf("linked = %+v", l)
	}
	data, _ := os.ReadFile(tries)
	if n := strings.Count(string(data), "x"); n != 3 {
		t.Errorf("gh-specstack ran %d times, want 3 (two refusals, then the link)", n)
	}
}

// TestLinkedReadsOldNames: link's report is read under its snake_case
// names and under the camelCase ones an older gh-specstack printed.
func TestLinkedReadsOldNames(t *testing.T) {
	for _, doc := range []string{
		`{"stack_mode": "native", "stack": 7, "stack_action": "created"}`,
		`{"stackMode": "native", "stack": 7, "stackAction": "created"}`,
	} {
		var l Linked
		if err := json.Unmarshal([]byte(doc), &l); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if l != (Linked{StackMode: "native", Stack: 7, StackAction: "created"}) {
			t.Errorf("%s: linked = %+v", doc, l)
		}
	}
}

// TestPublishCommands: the commands a person runs to publish as apply
// does name gh specstack's verb with one sh word per argument, quoted
// only where sh would read it otherwise.
func TestPublishCommands(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"push", PushCommand("feat/add-export"), "gh specstack push feat/add-export"},
		{"pr", PRCommand(NewPull{Title: "feat(openspec): implement x", Head: "feat/x", Body: "not used"}, "/r/openspec/changes/archive/2026-01-02-x/proposal.md"),
			"gh specstack pr --title 'feat(openspec): implement x' --body-file /r/openspec/changes/archive/2026-01-02-x/proposal.md feat/x"},
		{"pr on a base, as a draft", PRCommand(NewPull{Title: "t", Head: "feat/y", Base: "feat/x", Draft: true}, "p.md"),
			"gh specstack pr --title t --body-file p.md --base feat/x --draft feat/y"},
		{"quotes and spaces", PRCommand(NewPull{Title: "it's done", Head: "feat/z"}, "/my docs/p.md"),
			`gh specstack pr --title 'it'\''s done' --body-file '/my docs/p.md' feat/z`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
	}
}
