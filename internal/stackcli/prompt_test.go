package stackcli_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/stackcli"
	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// TestRunPrompt drives gh specstack run's start decision with an injected
// stdin and terminal check: on a terminal the run is shown and only an
// explicit yes starts it; a no, an empty line or the end of input start
// nothing (exit 5); without a terminal, or with --json, --yes is needed.
func TestRunPrompt(t *testing.T) {
	testenv.Isolate(t)
	const question = "Start this run? [y/N] "
	tests := []struct {
		name     string
		terminal bool
		stdin    string
		args     []string
		code     int
		stderr   string // a substring the stderr must hold
		asked    bool   // the question was put
		started  bool   // a run is in the ledger
	}{
		{name: "yes", terminal: true, stdin: "y\n", code: 0, asked: true, started: true},
		{name: "no", terminal: true, stdin: "n\n", code: 5, stderr: "run declined: nothing was started", asked: true},
		{name: "empty line", terminal: true, stdin: "\n", code: 5, stderr: "run declined", asked: true},
		{name: "end of input", terminal: true, stdin: "", code: 5, stderr: "run declined", asked: true},
		{name: "not a terminal", terminal: false, stdin: "y\n", code: 5, stderr: "re-run with --yes"},
		{name: "json on a terminal", terminal: true, stdin: "y\n", args: []string{"--json"}, code: 5, stderr: "re-run with --yes"},
		{name: "not a terminal with --yes", terminal: false, args: []string{"--yes"}, code: 0, started: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := newSpecRepo(t)
			var stdout, stderr bytes.Buffer
			args := append([]string{"gh-specstack", "-R", work, "run", "1", "--worker", `echo "$SPECSTACK_TASK" > "t$SPECSTACK_TASK.txt"; echo "Status: DONE" > "$SPECSTACK_REPORT"`}, tt.args...)
			code := cliapp.RunStreams(stackcli.Spec(), args, cliapp.Streams{
				In: strings.NewReader(tt.stdin), Out: &stdout, Err: &stderr,
				IsTerminal: func(any) bool { return tt.terminal },
			})
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
			if asked := strings.Contains(stderr.String(), question); asked != tt.asked {
				t.Errorf("question put: %v, want %v; stderr:\n%s", asked, tt.asked, stderr.String())
			}
			if tt.asked && !strings.Contains(stderr.String(), "#2") {
				t.Errorf("the prompt does not show the run's tickets first:\n%s", stderr.String())
			}
			_, err := os.Stat(filepath.Join(work, ".git", "specstack", "gh-specstack", "run.toml"))
			if started := err == nil; started != tt.started {
				t.Errorf("run in the ledger: %v, want %v (stat: %v)", started, tt.started, err)
			}
		})
	}
}

// newSpecRepo is a git clone of a bare origin, with the fake GitHub
// serving acme/app: spec #1 with one ticket, #2.
func newSpecRepo(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	origin, work := filepath.Join(root, "origin.git"), filepath.Join(root, "work")
	git := func(dir string, args ...string) {
		t.Helper()
		if out, err := xec.Output(ctx, xec.Cmd{Name: "git", Args: args, Dir: dir}); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(root, "init", "-q", "--bare", origin)
	git(root, "clone", "-q", origin, work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "add", "README.md")
	git(work, "commit", "-q", "-m", "base")
	git(work, "push", "-q", "origin", "main")
	st := fakegh.NewState()
	r := st.AddRepo("acme", "app", origin, "main")
	spec := r.AddIssue("Spec", "", nil, false)
	ticket := r.AddIssue("Ticket", "## Validation\n\n### Run per change\n- `test -s README.md`\n", nil, false)
	if err := r.AddSubIssue(spec.Number, ticket.Number); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fakegh.NewServer(st))
	t.Cleanup(hs.Close)
	t.Setenv("GH_SPECSTACK_API_URL", hs.URL+"/")
	t.Setenv("GH_TOKEN", "t0ken")
	t.Setenv("GH_REPO", "acme/app")
	return work
}
