package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// completeScript loads the completion scripts in a real bash (after the
// host's own completion, $HOSTCOMP, when set) and completes the words
// given as arguments the way bash does: COMP_WORDS and COMP_CWORD set,
// the function registered for the first word called with the command,
// the current and the previous word; then it prints COMPREPLY.
const completeScript = `
if [[ -n $HOSTCOMP ]]; then source <(eval "$HOSTCOMP"); fi
for b in jj-kaisen jj-openspec gh-specstack $RELOAD; do source <("$b" completion bash); done
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
spec=$(complete -p "$1") || exit 3
[[ $spec =~ -F\ ([^ ]+)\  ]] || exit 4
"${BASH_REMATCH[1]}" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
`

// TestBashCompletion checks, in a real bash, the alias forms (jj kaisen,
// jj openspec, gh specstack), flags after "--", change names, plan files,
// and that jj's (and gh's) own completion still answers everything else.
func TestBashCompletion(t *testing.T) {
	testenv.RequireJJ(t)
	dir := t.TempDir()
	for _, f := range []string{
		"plan.md", "notes.txt", "docs/x.md",
		"openspec/changes/add-export/proposal.md", "openspec/changes/fix-typo/proposal.md",
		"openspec/changes/archive/2026-01-01-old/proposal.md", "openspec/specs/.keep",
	} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const (
		jjStatic  = "jj util completion bash"
		jjDynamic = "COMPLETE=bash jj"
	)
	for _, tc := range []struct {
		name     string
		host     string // the host's completion, loaded first
		reload   string // scripts loaded a second time
		words    []string
		want     []string // all of these
		wantOnly bool     // and nothing else
		not      []string // none of these
	}{
		{name: "binary", words: []string{"jj-kaisen", "ru"}, want: []string{"run"}, wantOnly: true},
		{name: "jj kaisen verb", words: []string{"jj", "kaisen", "re"}, want: []string{"resume", "review", "resolve"}, wantOnly: true},
		{name: "jj kaisen verbs", words: []string{"jj", "kaisen", ""}, want: []string{"plan", "run", "fan-out", "gate", "doctor", "completion"}, not: []string{"help"}},
		{name: "flags after --", words: []string{"jj", "kaisen", "run", "--"}, want: []string{"--worker", "--reviewer", "--test", "--yes", "--max-parallel", "--json", "--repo", "--help"}, not: []string{"-y", "-R"}},
		{name: "flags after -- and a plan", words: []string{"jj", "kaisen", "run", "plan.md", "--w"}, want: []string{"--worker"}, wantOnly: true},
		{name: "flags of a subcommand", words: []string{"jj", "kaisen", "review", "record", "--"}, want: []string{"--task", "--passed", "--findings"}},
		{name: "-- then a path is no flag", words: []string{"jj", "kaisen", "resolve", "--", "--"}, not: []string{"--strategy", "--all"}},
		{name: "plan files", words: []string{"jj", "kaisen", "plan", ""}, want: []string{"plan.md", "docs", "openspec"}, wantOnly: true},
		{name: "plan files for run", words: []string{"jj-kaisen", "run", "--yes", "pl"}, want: []string{"plan.md"}, wantOnly: true},
		{name: "openspec verb", words: []string{"jj", "openspec", "va"}, want: []string{"validate"}, wantOnly: true},
		{name: "change names", words: []string{"jj", "openspec", "status", ""}, want: []string{"add-export", "fix-typo"}, wantOnly: true},
		{name: "change names by prefix", words: []string{"jj", "openspec", "archive", "--yes", "add"}, want: []string{"add-export"}, wantOnly: true},
		{name: "change names for validate", words: []string{"jj-openspec", "validate", "f"}, want: []string{"fix-typo"}, wantOnly: true},
		{name: "change names with -R", words: []string{"jj", "openspec", "-R", dir, "tasks", "tick", ""}, want: []string{"add-export", "fix-typo"}, wantOnly: true},
		{name: "tasks subcommands and changes", words: []string{"jj", "openspec", "tasks", ""}, want: []string{"tick", "untick", "add-export", "fix-typo"}, wantOnly: true},
		{name: "one change only", words: []string{"jj", "openspec", "status", "add-export", ""}, not: []string{"fix-typo"}},
		{name: "gh specstack verb", words: []string{"gh", "specstack", "re"}, want: []string{"recipes", "resume"}, wantOnly: true},
		{name: "gh specstack flags", words: []string{"gh", "specstack", "link", "--"}, want: []string{"--base", "--stack-mode", "--json"}},
		{name: "jj's own completion kept", host: jjStatic, words: []string{"jj", "workspac"}, want: []string{"workspace"}, wantOnly: true},
		{name: "alias after jj's completion", host: jjStatic, words: []string{"jj", "kaisen", "fan-"}, want: []string{"fan-out", "fan-in"}, wantOnly: true},
		// (jj's dynamic script names jj's real executable, which the
		// provisioned jj cannot run outside its wrapper: only the hook's
		// registration over it is checked here)
		{name: "alias after jj's dynamic completion", host: jjDynamic, words: []string{"jj", "openspec", "status", "fix"}, want: []string{"fix-typo"}, wantOnly: true},
		{name: "loaded twice", host: jjStatic, reload: "jj-kaisen jj-openspec", words: []string{"jj", "kaisen", "ga"}, want: []string{"gate"}, wantOnly: true},
		{name: "loaded twice, jj still answers", host: jjStatic, reload: "jj-openspec jj-kaisen", words: []string{"jj", "workspac"}, want: []string{"workspace"}, wantOnly: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-c", completeScript, "bash"}, tc.words...)
			out, err := xec.Output(t.Context(), xec.Cmd{
				Name: "bash", Args: args, Dir: dir, Timeout: time.Minute,
				Env: []string{"HOSTCOMP=" + tc.host, "RELOAD=" + tc.reload},
			})
			if err != nil {
				t.Fatalf("bash: %v", err)
			}
			got := strings.Fields(string(out))
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("COMPREPLY %q lacks %q", got, w)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(got, w) {
					t.Errorf("COMPREPLY %q holds %q", got, w)
				}
			}
			if tc.wantOnly && len(got) != len(tc.want) {
				t.Errorf("COMPREPLY %q, want exactly %q", got, tc.want)
			}
		})
	}
}
