package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// jjcount counts the jj processes a script's commands start, through the
// counting wrapper testenv puts on PATH (the real jj behind it):
//
//	jjcount mark            remember the count
//	jjcount at-most N WHAT  fail when more than N jj processes ran since
//	                        the mark; log the count, naming WHAT
func jjcount(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("jjcount does not take !")
	}
	counter := filepath.Join(ts.Getenv("HOME"), "jj-commands")
	read := func() int {
		data, err := os.ReadFile(counter)
		if os.IsNotExist(err) {
			return 0
		}
		ts.Check(err)
		n, err := strconv.Atoi(strings.TrimSpace(string(data)))
		ts.Check(err)
		return n
	}
	switch {
	case len(args) == 1 && args[0] == "mark":
		ts.Setenv("JJCOUNT_MARK", strconv.Itoa(read()))
	case len(args) >= 3 && args[0] == "at-most":
		limit, err := strconv.Atoi(args[1])
		ts.Check(err)
		mark, err := strconv.Atoi(ts.Getenv("JJCOUNT_MARK"))
		if err != nil {
			ts.Fatalf("jjcount at-most before jjcount mark")
		}
		n := read() - mark
		what := strings.Join(args[2:], " ")
		ts.Logf("jj processes of %s: %d (at most %d)", what, n, limit)
		if n > limit {
			ts.Fatalf("%s started %d jj processes, want at most %d", what, n, limit)
		}
	default:
		ts.Fatalf("usage: jjcount mark | jjcount at-most N WHAT")
	}
}
