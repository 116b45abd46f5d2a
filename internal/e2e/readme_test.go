package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/specstack/specstack/internal/testenv"
	"github.com/specstack/specstack/internal/xec"
)

// readmeSetUp is the README's set-up block, word for word. It is not run
// here (it would run the tests inside the tests): CI runs it, `make test`
// through .ci/run and `make install` through testdata/tools/smoke-install.
const readmeSetUp = `make install PREFIX=$HOME/.local   # build and install the binaries, man pages, completions (and jj, openspec, gh if you have none)
make test                          # provision jj, openspec, gh and the agent CLIs under ~/.cache/specstack; run every test
`

// maxReadmeLines keeps the README a front page: the reference is in man/.
const maxReadmeLines = 250

// TestReadme runs every ```sh block of README.md, in order, as a new user
// pasting them into one shell would: the set-up block aside (see
// readmeSetUp), each block is one `sh -e` script, in a private HOME with
// $HOME/.local/bin first on PATH and the three binaries on PATH, and must
// exit 0. A block starts where its paragraph says: "in the specstack
// checkout" there, "scratch directory" in the scratch directory shared by
// all blocks; any other starts where the block before it ended, as in
// that user's shell (the first in the scratch directory). A paragraph that
// says the block needs `claude` on PATH runs it only where it is
// ([agent:claude]: with REQUIRE_AGENTS, a missing claude fails).
func TestReadme(t *testing.T) {
	testenv.RequireJJ(t)
	if _, err := xec.LookPath("openspec"); err != nil && os.Getenv("REQUIRE_OPENSPEC") != "" {
		t.Fatal("openspec not on PATH and REQUIRE_OPENSPEC is set: run `make test`, which provisions it")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, over %d: move reference material into a man page (internal/manpage)", n, maxReadmeLines)
	}
	script, err := readmeScript(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	p := Params(t, dir)
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("CHECKOUT", checkout)
		// Go's caches, so that a block that builds does not start cold.
		keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"}
		out, err := xec.Output(t.Context(), xec.Cmd{Name: "go", Args: append([]string{"env"}, keys...)})
		if err != nil {
			return fmt.Errorf("go env: %w", err)
		}
		values := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(values) != len(keys) {
			return fmt.Errorf("go env printed %d lines for %d variables", len(values), len(keys))
		}
		for i, k := range keys {
			env.Setenv(k, values[i])
		}
		home := env.Getenv("HOME")
		env.Setenv("PATH", filepath.Join(home, ".local", "bin")+string(os.PathListSeparator)+env.Getenv("PATH"))
		return nil
	}
	testscript.Run(t, p)
}

var shBlockRe = regexp.MustCompile("(?ms)^```sh\n(.*?)^```\n")

// readmeScript is the testscript of the README's shell blocks.
func readmeScript(readme string) ([]byte, error) {
	blocks := shBlockRe.FindAllStringSubmatchIndex(readme, -1)
	if len(blocks) < 4 {
		return nil, fmt.Errorf("README.md has %d ```sh blocks; want the set-up, the identity and aliases, and a quick start per binary", len(blocks))
	}
	first := readme[blocks[0][2]:blocks[0][3]]
	if first != readmeSetUp {
		return nil, fmt.Errorf("the README's first ```sh block is not the set-up this test knows CI runs:\n%s\nwant:\n%s", first, readmeSetUp)
	}
	var b strings.Builder
	b.WriteString("# The README's ```sh blocks, in order; each records where it ended in $WORK/cwd.\nmkdir scratch\n")
	a := &txtar.Archive{}
	for i, m := range blocks[1:] {
		body := readme[m[2]:m[3]]
		before := readme[:m[0]]
		para := strings.ToLower(strings.Join(strings.Fields(before[strings.LastIndex(strings.TrimRight(before, "\n"), "\n\n")+1:]), " "))
		dir, start := "$WORK/scratch", ""
		switch {
		case strings.Contains(para, "in the specstack checkout"):
			dir = "$CHECKOUT"
		case strings.Contains(para, "scratch directory") || i == 0:
		default:
			start = `cd "$(cat "$WORK/cwd")"` + "\n"
		}
		cond := ""
		if strings.Contains(para, "`claude` on path") {
			cond = "[agent:claude] "
		}
		name := "block-" + strconv.Itoa(i+2) + ".sh"
		a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(start + body + `pwd > "$WORK/cwd"` + "\n")})
		line := strings.Count(readme[:m[0]], "\n") + 1
		fmt.Fprintf(&b, "\n# README.md line %d\ncd %s\n%sexec sh -e $WORK/%s\n", line, dir, cond, name)
	}
	a.Comment = []byte(b.String())
	return txtar.Format(a), nil
}

// TestReadmeScriptFails shows the README test catches what it is for: a
// set-up block that is not the known one, too few blocks, and a block that
// assumes a directory other than the one the block before it left.
func TestReadmeScriptFails(t *testing.T) {
	good := "```sh\n" + readmeSetUp + "```\n"
	for _, bad := range []string{
		"no blocks",
		"```sh\nmake install\n```\n```sh\na\n```\n```sh\nb\n```\n```sh\nc\n```\n",
		good + "```sh\na\n```\n",
	} {
		if _, err := readmeScript(bad); err == nil {
			t.Errorf("readmeScript(%q) = nil error", bad)
		}
	}
	s, err := readmeScript(good + "\nIn the specstack checkout:\n\n```sh\nx\n```\n\nIn a scratch directory:\n\n```sh\ny\n```\n```sh\nz\n```\n\nWith `claude` on PATH:\n\n```sh\nw\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cd $CHECKOUT\nexec sh -e $WORK/block-2.sh\n", "-- block-2.sh --\nx\npwd > \"$WORK/cwd\"\n",
		"cd $WORK/scratch\nexec sh -e $WORK/block-3.sh\n", "-- block-3.sh --\ny\n",
		// z says nothing of where it runs: where y ended
		"-- block-4.sh --\ncd \"$(cat \"$WORK/cwd\")\"\nz\npwd > \"$WORK/cwd\"\n",
		"[agent:claude] exec sh -e $WORK/block-5.sh\n",
	} {
		if !strings.Contains(string(s), want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}
