package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/specstack/specstack/internal/exitcode"
)

// exitAssertion matches the scripts' exact exit-code checks: `exits N`
// (see exits) and `fakegh run --exit N`.
var exitAssertion = regexp.MustCompile(`^\s*(?:!\s+)?exec\s+(?:exits\s+(\d+)|fakegh\s+run\s+--exit\s+(\d+))\s`)

// TestEveryExitCodeIsScripted walks the frozen exit-code table: every code
// must be produced by at least one end-to-end script that asserts it
// exactly, and no script may assert a code the table lacks.
func TestEveryExitCodeIsScripted(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "script")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	known := map[int]bool{}
	for _, e := range exitcode.Table {
		known[int(e.Code)] = true
	}
	seen := map[int][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(scriptPart(string(data)), "\n") {
			m := exitAssertion.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1] + m[2])
			where := filepath.Base(f) + ":" + strconv.Itoa(i+1)
			if !known[n] {
				t.Errorf("%s asserts exit %d, which is not in internal/exitcode's table", where, n)
			}
			seen[n] = append(seen[n], where)
		}
	}
	for _, e := range exitcode.Table {
		if len(seen[int(e.Code)]) == 0 {
			t.Errorf("exit code %d (%s) is produced by no script: add an `exec exits %d ...` case to testdata/script/exitcodes.txtar", e.Code, e.Name, e.Code)
		}
	}
}

// scriptPart is a txtar file's script, without its files.
func scriptPart(s string) string {
	if i := strings.Index(s, "\n-- "); i >= 0 {
		return s[:i]
	}
	return s
}
