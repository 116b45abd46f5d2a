package openspec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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

func realOpenSpec(t *testing.T, dir string, args ...string) (string, string, int) {
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

func parseList(t *testing.T, who, out string) []listedChange {
	t.Helper()
	var doc struct {
		Changes []listedChange `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s list --json: %v\n%s", who, err, out)
	}
	sort.Slice(doc.Changes, func(i, j int) bool { return doc.Changes[i].Name < doc.Changes[j].Name })
	return doc.Changes
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
	requireOpenSpec(t)
	for _, file := range corpus(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("list", func(t *testing.T) {
				a, b := t.TempDir(), t.TempDir()
				extract(t, file, a)
				extract(t, file, b)
				wantOut, wantErr, wantCode := realOpenSpec(t, a, "list", "--json")
				gotOut, gotErr, gotCode := jjOpenSpec("--repo", b, "list", "--json")
				if wantCode != 0 || gotCode != 0 {
					t.Fatalf("list exit: openspec %d (%s), jj-openspec %d (%s)", wantCode, wantErr, gotCode, gotErr)
				}
				want, got := parseList(t, "openspec", wantOut), parseList(t, "jj-openspec", gotOut)
				if fmt.Sprint(want) != fmt.Sprint(got) {
					t.Errorf("list --json:\nopenspec    %v\njj-openspec %v", want, got)
				}
				wantOut, _, _ = realOpenSpec(t, a, "list", "--specs", "--json")
				gotOut, _, _ = jjOpenSpec("--repo", b, "list", "--specs", "--json")
				var ws, gs struct {
					Specs []struct {
						ID               string `json:"id"`
						RequirementCount int    `json:"requirementCount"`
					} `json:"specs"`
				}
				if err := json.Unmarshal([]byte(wantOut), &ws); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(gotOut), &gs); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(ws.Specs) != fmt.Sprint(gs.Specs) {
					t.Errorf("list --specs --json:\nopenspec    %v\njj-openspec %v", ws.Specs, gs.Specs)
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
					var got struct {
						Valid  bool    `json:"valid"`
						Issues []issue `json:"issues"`
					}
					if err := json.Unmarshal([]byte(gotOut), &got); err != nil {
						t.Fatalf("jj-openspec validate --json: %v\n%s%s", err, gotOut, gotErr)
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
					_, wantErr, wantCode := realOpenSpec(t, a, "archive", change, "--yes")
					_, gotErr, gotCode := jjOpenSpec("--repo", b, "archive", change, "--yes")
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
				})
			}
		})
	}
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
