package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// openspecVersion is the OpenSpec CLI the suite is provisioned for: the
// pin in testdata/tools/openspec-version.
func openspecVersion() (string, error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tools", "openspec-version"))
	return strings.TrimSpace(string(b)), err
}

// maxKnownDifferences caps testdata/openspec-acceptance/known-differences.txt:
// raising it is the decision to accept a new difference.
const maxKnownDifferences = 0

// TestOpenSpecAcceptance runs OpenSpec's own CLI tests (laid out by
// testdata/tools/install-openspec-tests under $SPECSTACK_CACHE, which
// `make test` runs) twice: against the real OpenSpec CLI, and with the
// CLI's entry replaced by testdata/openspec-acceptance/entry.mjs, which
// sends the verbs jj-openspec implements to a jj-openspec built from this
// tree. Every test that passes on the real CLI must pass the second time,
// or be listed in known-differences.txt with its reason. Without the
// suite (OpenSpec's sources unreachable) it is skipped, saying why, or
// fails when REQUIRE_OPENSPEC_TESTS is set.
func TestOpenSpecAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("the acceptance suite runs OpenSpec's tests twice (minutes); not with -short")
	}
	suite, err := acceptanceSuite()
	if err != nil {
		if os.Getenv("REQUIRE_OPENSPEC_TESTS") != "" {
			t.Fatalf("REQUIRE_OPENSPEC_TESTS is set but %v", err)
		}
		t.Skipf("OpenSpec's CLI tests are not provisioned: %v", err)
	}
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Fatalf("the acceptance suite needs the real openspec CLI on PATH (jj-openspec passes the verbs it lacks to it): %v", err)
	}
	known, err := readKnownDifferences(filepath.Join("..", "..", "testdata", "openspec-acceptance", "known-differences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(known) > maxKnownDifferences {
		t.Errorf("known-differences.txt lists %d tests, more than maxKnownDifferences (%d): fix jj-openspec, or raise the cap as a decision", len(known), maxKnownDifferences)
	}
	files, err := cliTestFiles(filepath.Join(suite, "test"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no test file under %s spawns the CLI: not OpenSpec's test suite?", filepath.Join(suite, "test"))
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "../../cmd/jj-openspec")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build jj-openspec: %v\n%s", err, out)
	}

	theirs := runVitest(t, copySuite(t, suite, ""), files, bin)
	entry, err := filepath.Abs(filepath.Join("..", "..", "testdata", "openspec-acceptance", "entry.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ours := runVitest(t, copySuite(t, suite, entry), files, bin)

	passed, failing := 0, 0
	var regressions []string
	for key, st := range theirs {
		if st.status != "passed" {
			continue
		}
		passed++
		got, ok := ours[key]
		why, listed := known[key]
		switch {
		case ok && got.status == "passed":
			if listed {
				t.Errorf("known difference now passes, delete its line: %s (%s)", key, why)
			}
			continue
		case listed:
			failing++
			continue
		}
		failing++
		msg := "missing from the jj-openspec run"
		if ok {
			msg = got.status + ": " + firstLine(got.message)
		}
		regressions = append(regressions, fmt.Sprintf("%s\n\t%s", key, msg))
	}
	for key := range known {
		if st, ok := theirs[key]; !ok || st.status != "passed" {
			t.Errorf("known difference %q does not pass on the real CLI (renamed or removed upstream?): delete its line", key)
		}
	}
	sort.Strings(regressions)
	t.Logf("OpenSpec's CLI tests (%s): %d tests in %d files, %d pass on the real CLI; with jj-openspec %d of those fail, %d listed as known",
		suiteSource(suite), len(theirs), len(files), passed, failing, failing-len(regressions))
	if passed == 0 {
		t.Fatal("no test passed on the real CLI: the suite is broken, not jj-openspec")
	}
	for _, r := range regressions {
		t.Errorf("passes on the real CLI, not with jj-openspec: %s", r)
	}
}

// acceptanceSuite returns the provisioned suite's directory.
func acceptanceSuite() (string, error) {
	cache := os.Getenv("SPECSTACK_CACHE")
	if cache == "" {
		return "", fmt.Errorf("SPECSTACK_CACHE is not set (run `make test`, which provisions the suite)")
	}
	version, err := openspecVersion()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "openspec-tests", version)
	if _, err := os.Stat(filepath.Join(dir, ".source")); err != nil {
		return "", fmt.Errorf("no suite at %s (testdata/tools/install-openspec-tests %s; it fetches them from OpenSpec's repository, or OPENSPEC_TESTS_SOURCE)", dir, dir)
	}
	return dir, nil
}

func suiteSource(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, ".source"))
	return strings.TrimSpace(string(b))
}

// cliTestFiles lists the test files (relative to the suite) that run the
// CLI: through the test helper runCLI, or node on dist/cli/index.js or
// bin/openspec.js.
func cliTestFiles(testDir string) ([]string, error) {
	spawns := regexp.MustCompile(`runCLI\(|dist/cli/index\.js|'bin', 'openspec\.js'|bin/openspec\.js`)
	var out []string
	err := filepath.WalkDir(testDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".test.ts") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if spawns.Match(b) {
			rel, _ := filepath.Rel(filepath.Dir(testDir), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// copySuite copies the suite into a scratch directory (its tests write
// beside themselves), node_modules linked, and with entry (when not "")
// as dist/cli/index.js, the real one moved to real-index.js.
func copySuite(t *testing.T, suite, entry string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "openspec")
	copyTree(t, suite, dst, "node_modules")
	err := os.Symlink(filepath.Join(suite, "node_modules"), filepath.Join(dst, "node_modules"))
	if err == nil && entry != "" {
		cli := filepath.Join(dst, "dist", "cli")
		if err = os.Rename(filepath.Join(cli, "index.js"), filepath.Join(cli, "real-index.js")); err == nil {
			var b []byte
			if b, err = os.ReadFile(entry); err == nil {
				err = os.WriteFile(filepath.Join(cli, "index.js"), b, 0o644)
			}
		}
	}
	if err != nil {
		t.Fatalf("copy the suite: %v", err)
	}
	return dst
}

type testResult struct{ status, message string }

// runVitest runs files in dir with vitest's JSON reporter and returns each
// test's result by "FILE :: FULL NAME".
func runVitest(t *testing.T, dir string, files []string, bin string) map[string]testResult {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	args := append([]string{filepath.Join("node_modules", "vitest", "vitest.mjs"), "run", "--reporter=json", "--outputFile=" + report,
		// Both runs alike: room for a loaded machine (make test runs packages
		// side by side), and one retry, so that only a repeatable failure counts.
		"--testTimeout=60000", "--hookTimeout=60000", "--retry=1"}, files...)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "OPENSPEC_TELEMETRY=0", "DO_NOT_TRACK=1", "NO_COLOR=1",
		"JJ_OPENSPEC="+filepath.Join(bin, "jj-openspec"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run() // vitest exits 1 when a test fails: the report says which
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("vitest in %s wrote no report (%v, %v); its output ends:\n%s", dir, runErr, err, tail(out.String(), 40))
	}
	var doc struct {
		TestResults []struct {
			Name             string `json:"name"`
			Status           string `json:"status"`
			Message          string `json:"message"`
			AssertionResults []struct {
				FullName        string   `json:"fullName"`
				Status          string   `json:"status"`
				FailureMessages []string `json:"failureMessages"`
			} `json:"assertionResults"`
		} `json:"testResults"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("vitest's report %s: %v", report, err)
	}
	res := map[string]testResult{}
	for _, f := range doc.TestResults {
		rel, err := filepath.Rel(dir, f.Name)
		if err != nil {
			rel = f.Name
		}
		if len(f.AssertionResults) == 0 && f.Status != "passed" {
			// Its tests are not in either run's count: say so.
			t.Logf("%s: %s did not run: %s", filepath.Base(filepath.Dir(dir)), filepath.ToSlash(rel), firstLine(f.Message))
		}
		for _, a := range f.AssertionResults {
			r := testResult{status: a.Status}
			if len(a.FailureMessages) > 0 {
				r.message = a.FailureMessages[0]
			}
			res[filepath.ToSlash(rel)+" :: "+a.FullName] = r
		}
	}
	return res
}

// readKnownDifferences reads "FILE :: FULL NAME :: WHY" lines ('#'
// comments and blank lines aside) into WHY by "FILE :: FULL NAME".
func readKnownDifferences(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " :: ")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || strings.TrimSpace(parts[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want FILE :: FULL TEST NAME :: WHY", path, n)
		}
		key := parts[0] + " :: " + parts[1]
		if _, dup := known[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, n, key)
		}
		known[key] = parts[2]
	}
	return known, sc.Err()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
