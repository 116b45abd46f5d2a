package openspec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/internal/openspeccli"
)

// requireOpenSpec skips the test when the openspec CLI is not on PATH,
// or fails it when REQUIRE_OPENSPEC is set (CI).
func requireOpenSpec(t *testing.T) {
	t.Helper()
	if _, err := openspec.Path(); err != nil {
		if os.Getenv("REQUIRE_OPENSPEC") != "" {
			t.Fatalf("REQUIRE_OPENSPEC is set but %v; run `make tools` (testdata/tools/install-openspec)", err)
		}
		t.Skipf("%v; `make test` installs it when npm is present", err)
	}
}

// isolated keeps the CLI away from the user's configuration and data.
func isolated(t *testing.T) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
}

// jjOpenSpec runs jj-openspec in process and returns stdout, stderr and
// the exit code.
func jjOpenSpec(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := cliapp.Run(openspeccli.Spec(), append([]string{"jj-openspec"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// realOpenSpec runs the real OpenSpec CLI in dir with a private HOME and
// returns its stdout, its stderr (allow-listed lines dropped) and its exit
// code: from the parity cache (cache_test.go) when an earlier run had the
// same key, else run in a batch process (batch_test.go), or in a process of
// its own under PARITY_BATCH=off.
func realOpenSpec(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if cacheOff() {
		return realOpenSpecUncached(t, dir, args...)
	}
	run := func() (string, string, int, error) {
		out, errOut, code := realOpenSpecUncached(t, dir, args...)
		return out, errOut, code, nil
	}
	out, errOut, code, err := cachedRun(dir, args, batchMode(), run)
	if err != nil {
		t.Fatalf("openspec %v: %v", args, err)
	}
	return out, errOut, code
}

// realOpenSpecUncached runs the real OpenSpec CLI, in a batch process
// unless PARITY_BATCH=off.
func realOpenSpecUncached(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if batchMode() {
		return batchOpenSpec(t, dir, args...)
	}
	return processOpenSpec(t, dir, args...)
}

// processOpenSpec runs the real OpenSpec CLI as its own process.
func processOpenSpec(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	res, err := openspec.Run(t.Context(), openspec.Cmd{Args: args, Dir: dir, Env: isolated(t), Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("openspec %v: %v", args, err)
	}
	return out.String(), errb.String(), res.ExitCode
}

type listedChange struct {
	Name           string   `json:"name"`
	CompletedTasks int      `json:"completedTasks"`
	TotalTasks     int      `json:"totalTasks"`
	Status         string   `json:"status"`
	Nested         []string `json:"nested"`
}

// listJSON is a list --json document with the project root's path (each
// side's own temporary directory, resolved as OpenSpec resolves it)
// replaced by ROOT, so two extractions compare byte for byte.
func listJSON(t *testing.T, who, dir, out string) string {
	t.Helper()
	if !json.Valid([]byte(out)) {
		t.Fatalf("%s list --json: not JSON:\n%s", who, out)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(real)
	return strings.ReplaceAll(out, string(quoted), `"ROOT"`)
}

type issue struct {
	Level   string `json:"level"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (i issue) String() string {
	return fmt.Sprintf("[%s] %s:%d %s", i.Level, i.Path, i.Line, i.Message)
}

// TestParity runs the real openspec CLI and jj-openspec on every corpus
// repository and requires the same task counts, validation verdicts and
// issues, and archive results.
func TestParity(t *testing.T) {
	t.Parallel() // beside the other suites running the CLI (batchWorkers bounds them)
	requireOpenSpec(t)
	for _, file := range corpus(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("list", func(t *testing.T) {
				a, b := t.TempDir(), t.TempDir()
				extract(t, file, a)
				extract(t, file, b)
				// The whole document byte for byte: order (most recent
				// first, by lastModified rounded to the millisecond as Node
				// does), counts, lastModified, warnings and root.
				for _, args := range [][]string{{"list", "--json"}, {"list", "--specs", "--json"}, {"list", "--sort", "name", "--json"}} {
					wantOut, wantErr, wantCode := realOpenSpec(t, a, args...)
					gotOut, gotErr, gotCode := jjOpenSpec(append([]string{"--repo", b}, args...)...)
					if wantCode != 0 || gotCode != 0 {
						t.Fatalf("%v exit: openspec %d (%s), jj-openspec %d (%s)", args, wantCode, wantErr, gotCode, gotErr)
					}
					if want, got := listJSON(t, "openspec", a, wantOut), listJSON(t, "jj-openspec", b, gotOut); want != got {
						t.Errorf("%v:\nopenspec:\n%s\njj-openspec:\n%s", args, want, got)
					}
				}
			})
			t.Run("show", func(t *testing.T) {
				a, b := t.TempDir(), t.TempDir()
				extract(t, file, a)
				extract(t, file, b)
				// show SPEC --json (natively: the spec as OpenSpec's
				// MarkdownParser reads it), show CHANGE --json (its
				// ChangeParser's deltas) and instructions, byte for byte
				// but the root.
				specs, _ := filepath.Glob(filepath.Join(a, "openspec", "specs", "*", "spec.md"))
				// bulk validate: every change and spec, document and text
				calls := [][]string{{"validate", "--all", "--json"}, {"validate", "--all"}, {"validate", "--changes", "--strict", "--json"},
					{"validate", "--specs", "--no-interactive"}, {"validate", "--specs", "--strict"},
					// status --all: every change's status, document and text
					{"status", "--all", "--json"}, {"status", "--all"}}
				for _, sp := range specs {
					id := filepath.Base(filepath.Dir(sp))
					calls = append(calls, []string{"show", id, "--type", "spec", "--json"}, []string{"show", id, "--json", "--no-scenarios"},
						// validate SPEC: its document, its text, --strict
						[]string{"validate", id, "--json"}, []string{"validate", id, "--type", "spec"}, []string{"validate", id, "--strict"})
				}
				for _, change := range changeNames(t, a) {
					calls = append(calls, []string{"show", change, "--json"}, []string{"show", change, "--type", "change", "--json", "--deltas-only"})
					// instructions ARTIFACT --change NAME --json (natively for
					// the built-in schema) for each artifact of spec-driven
					// and instructions apply|archive, what apply and archive read
					for _, artifact := range []string{"proposal", "specs", "design", "tasks", "apply", "archive"} {
						calls = append(calls, []string{"instructions", artifact, "--change", change, "--json"})
					}
				}
				for _, args := range calls {
					wantOut, wantErr, wantCode := realOpenSpec(t, a, args...)
					gotOut, gotErr, gotCode := jjOpenSpec(append([]string{"--repo", b}, args...)...)
					if w, g := sameDoc(wantOut, a), sameDoc(gotOut, b); w != g || wantCode != gotCode || wantErr != gotErr {
						t.Errorf("%v: openspec exit %d, jj-openspec exit %d\nopenspec:\n%s%s\njj-openspec:\n%s%s", args, wantCode, gotCode, w, wantErr, g, gotErr)
					}
				}
			})
			dir := t.TempDir()
			extract(t, file, dir)
			expect := expected(t, file)
			if len(expect) != len(changeNames(t, dir)) {
				t.Errorf("%d expect lines for %d changes", len(expect), len(changeNames(t, dir)))
			}
			for _, change := range changeNames(t, dir) {
				t.Run("validate/"+change, func(t *testing.T) {
					a, b := t.TempDir(), t.TempDir()
					extract(t, file, a)
					extract(t, file, b)
					wantOut, wantErr, wantCode := realOpenSpec(t, a, "validate", change, "--json")
					var want struct {
						Items []struct {
							Valid  bool    `json:"valid"`
							Issues []issue `json:"issues"`
						} `json:"items"`
					}
					if err := json.Unmarshal([]byte(wantOut), &want); err != nil || len(want.Items) != 1 {
						t.Fatalf("openspec validate --json: %v\n%s%s", err, wantOut, wantErr)
					}
					gotOut, gotErr, gotCode := jjOpenSpec("--repo", b, "validate", change, "--json")
					var gotDoc struct {
						Items []struct {
							Valid  bool    `json:"valid"`
							Issues []issue `json:"issues"`
						} `json:"items"`
					}
					if err := json.Unmarshal([]byte(gotOut), &gotDoc); err != nil || len(gotDoc.Items) != 1 {
						t.Fatalf("jj-openspec validate --json: %v\n%s%s", err, gotOut, gotErr)
					}
					got := gotDoc.Items[0]
					// The whole document is OpenSpec's, but for the timing
					// and the root each run is given.
					if w, g := sameDoc(wantOut, a), sameDoc(gotOut, b); w != g {
						t.Errorf("validate %s --json document:\nopenspec:\n%s\njj-openspec:\n%s", change, w, g)
					}
					if want.Items[0].Valid != expect[change][0] {
						t.Errorf("openspec says valid=%v but the corpus file records %v: update its expect line", want.Items[0].Valid, expect[change][0])
					}
					if want.Items[0].Valid != got.Valid || (wantCode == 0) != (gotCode == 0) {
						t.Errorf("validate %s: openspec valid=%v exit=%d, jj-openspec valid=%v exit=%d", change, want.Items[0].Valid, wantCode, got.Valid, gotCode)
					}
					if fmt.Sprint(want.Items[0].Issues) != fmt.Sprint(got.Issues) {
						t.Errorf("validate %s issues:\nopenspec:\n%s\njj-openspec:\n%s", change, lines(want.Items[0].Issues), lines(got.Issues))
					}
					compareStatus(t, a, b, change)
					// --strict fails on warnings too; OpenSpec's verdict follows
					// from its issues, so it is derived rather than run again.
					strictValid := true
					for _, i := range want.Items[0].Issues {
						strictValid = strictValid && i.Level != "ERROR" && i.Level != "WARNING"
					}
					if _, _, gotStrict := jjOpenSpec("--repo", b, "validate", change, "--strict"); strictValid != (gotStrict == 0) {
						t.Errorf("validate %s --strict: openspec's issues make it valid=%v, jj-openspec exit %d", change, strictValid, gotStrict)
					}
				})
				t.Run("archive/"+change, func(t *testing.T) {
					a, b := t.TempDir(), t.TempDir()
					extract(t, file, a)
					extract(t, file, b)
					wantOut, wantErr, wantCode := realOpenSpec(t, a, "archive", change, "--yes")
					gotOut, gotErr, gotCode := jjOpenSpec("--repo", b, "archive", change, "--yes")
					if want, refused := refusalIssues(wantOut); refused {
						if got, _ := refusalIssues(gotOut); want != got {
							t.Errorf("archive %s refused: the issues printed differ:\nopenspec:\n%s\njj-openspec:\n%s", change, want, got)
						}
					}
					if want, got := proposalWarnings(wantOut), proposalWarnings(gotOut); want != got {
						t.Errorf("archive %s: the proposal warnings differ:\nopenspec:\n%s\njj-openspec:\n%s", change, want, got)
					}
					if (wantCode == 0) != expect[change][1] {
						t.Errorf("openspec archived=%v but the corpus file records %v: update its expect line", wantCode == 0, expect[change][1])
					}
					wantTree, gotTree := tree(t, a), tree(t, b)
					_, wantMoved := wantTree["openspec/changes/"+change+"/proposal.md"]
					_, gotMoved := gotTree["openspec/changes/"+change+"/proposal.md"]
					if (wantCode == 0) != (gotCode == 0) || wantMoved != gotMoved {
						t.Errorf("archive %s: openspec exit %d, jj-openspec exit %d\nopenspec stderr: %s\njj-openspec stderr: %s", change, wantCode, gotCode, wantErr, gotErr)
					}
					if d := diffTrees(wantTree, gotTree); d != "" {
						t.Errorf("archive %s: trees differ:\n%s", change, d)
					}
					// Both ways: the drift check (above; a plain directory has
					// no history, so no base) and --no-drift-check.
					c := t.TempDir()
					extract(t, file, c)
					_, noErr, noCode := jjOpenSpec("--repo", c, "archive", change, "--yes", "--no-drift-check")
					if (noCode == 0) != (gotCode == 0) {
						t.Errorf("archive %s --no-drift-check: exit %d, without the flag %d\n%s", change, noCode, gotCode, noErr)
					}
					if d := diffTrees(wantTree, tree(t, c)); d != "" {
						t.Errorf("archive %s --no-drift-check: trees differ:\n%s", change, d)
					}
					// An archive that succeeds: the same --json document
					// (archivedAs, specsUpdated, totals, warnings), the roots
					// aside.
					if wantCode == 0 {
						d, e := t.TempDir(), t.TempDir()
						extract(t, file, d)
						extract(t, file, e)
						wantJSON, _, _ := realOpenSpec(t, d, "archive", change, "--yes", "--json")
						gotJSON, _, _ := jjOpenSpec("--repo", e, "archive", change, "--yes", "--json")
						if w, g := rootsAside(wantJSON, d), rootsAside(gotJSON, e); w != g {
							t.Errorf("archive %s --yes --json:\nopenspec:\n%s\njj-openspec:\n%s", change, w, g)
						}
					}
				})
			}
		})
	}
}

// rootsAside is out with dir (and its real path) written ROOT.
func rootsAside(out, dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		out = strings.ReplaceAll(out, real, "ROOT")
	}
	return strings.ReplaceAll(out, dir, "ROOT")
}

// refusalIssues reads the issues archive (either tool's) prints when delta
// validation refuses the change ("  ✗ message" for an error, "  ⚠ message"
// for a warning) as "LEVEL message" lines; refused is false when it did
// not refuse for that reason.
func refusalIssues(stdout string) (issues string, refused bool) {
	_, rest, refused := strings.Cut(stdout, "Validation errors in change delta specs:\n")
	if !refused {
		return "", false
	}
	var b strings.Builder
	for _, l := range strings.Split(rest, "\n") {
		switch {
		case strings.HasPrefix(l, "  ✗ "):
			b.WriteString("ERROR " + strings.TrimPrefix(l, "  ✗ ") + "\n")
		case strings.HasPrefix(l, "  ⚠ "):
			b.WriteString("WARNING " + strings.TrimPrefix(l, "  ⚠ ") + "\n")
		}
	}
	return b.String(), true
}

// proposalWarnings is the "Proposal warnings" block archive (either
// tool's) prints first, its heading and lines; "" when there is none.
func proposalWarnings(stdout string) string {
	const heading = "Proposal warnings in proposal.md (non-blocking):\n"
	i := strings.Index(stdout, heading)
	if i < 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(heading)
	for _, l := range strings.SplitAfter(stdout[i+len(heading):], "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

func lines(is []issue) string {
	var b bytes.Buffer
	for _, i := range is {
		b.WriteString("  " + i.String() + "\n")
	}
	return b.String()
}

// compareStatus requires the artifacts OpenSpec counts as done, and the
// apply-readiness that follows from its applyRequires, from jj-openspec
// status.
func compareStatus(t *testing.T, a, b, change string) {
	t.Helper()
	out, errOut, code := realOpenSpec(t, a, "status", "--change", change, "--json")
	// OpenSpec's own form: the same document (or refusal) and exit code.
	osOut, osErr, osCode := jjOpenSpec("--repo", b, "status", "--change", change, "--json")
	if (code == 0) != (osCode == 0) {
		t.Errorf("status --change %s: openspec exit %d (%s), jj-openspec exit %d (%s)", change, code, errOut, osCode, osErr)
	} else if code == 0 {
		if w, g := sameDoc(out, a), sameDoc(osOut, b); w != g {
			t.Errorf("status --change %s --json document:\nopenspec:\n%s\njj-openspec:\n%s", change, w, g)
		}
	}
	if code != 0 {
		// openspec refuses the change (invalid metadata): so must we.
		if _, gotErr, gotCode := jjOpenSpec("--repo", b, "status", change, "--json"); gotCode == 0 {
			t.Errorf("status %s: openspec exit %d (%s), jj-openspec accepted it (%s)", change, code, errOut, gotErr)
		}
		return
	}
	var want struct {
		ApplyRequires []string `json:"applyRequires"`
		Artifacts     []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatalf("openspec status --json: %v\n%s", err, out)
	}
	gotOut, gotErr, gotCode := jjOpenSpec("--repo", b, "status", change, "--json")
	if gotCode != 0 {
		t.Fatalf("jj-openspec status: exit %d: %s", gotCode, gotErr)
	}
	var got struct {
		ApplyReady bool `json:"apply_ready"`
		Artifacts  []struct {
			ID   string `json:"id"`
			Done bool   `json:"done"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(gotOut), &got); err != nil {
		t.Fatal(err)
	}
	wantDone, gotDone := map[string]bool{}, map[string]bool{}
	for _, x := range want.Artifacts {
		wantDone[x.ID] = x.Status == "done" || x.Status == "skipped" // skipped counts as complete
	}
	for _, x := range got.Artifacts {
		gotDone[x.ID] = x.Done
	}
	if fmt.Sprint(wantDone) != fmt.Sprint(gotDone) {
		t.Errorf("status %s artifacts done: openspec %v, jj-openspec %v", change, wantDone, gotDone)
	}
	ready := true
	for _, r := range want.ApplyRequires {
		ready = ready && wantDone[r]
	}
	if ready != got.ApplyReady {
		t.Errorf("status %s: apply-ready per openspec %v, jj-openspec %v", change, ready, got.ApplyReady)
	}
}

var durationRe = regexp.MustCompile(`"durationMs": \d+`)

// sameDoc is a JSON document with its timings and the project root dir
// masked, for comparing two runs on copies of one tree.
func sameDoc(out, dir string) string {
	return strings.ReplaceAll(durationRe.ReplaceAllString(out, `"durationMs": 0`), dir, "ROOT")
}
