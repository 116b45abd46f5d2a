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
// pasting them would: the set-up block aside (see readmeSetUp), each block
// is one `sh -e` script run in a scratch directory shared by all of them
// (a block that says it runs "in the specstack checkout" runs there), in a
// private HOME with $HOME/.local/bin first on PATH and the three binaries
// on PATH, and must exit 0.
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
	b.WriteString("# The README's ```sh blocks, in order.\nmkdir scratch\n")
	a := &txtar.Archive{}
	for i, m := range blocks[1:] {
		body := readme[m[2]:m[3]]
		before := readme[:m[0]]
		para := before[strings.LastIndex(strings.TrimRight(before, "\n"), "\n\n")+1:]
		dir := "$WORK/scratch"
		if strings.Contains(strings.ToLower(strings.Join(strings.Fields(para), " ")), "in the specstack checkout") {
			dir = "$CHECKOUT"
		}
		name := "block-" + strconv.Itoa(i+2) + ".sh"
		a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(body)})
		line := strings.Count(readme[:m[0]], "\n") + 1
		fmt.Fprintf(&b, "\n# README.md line %d\ncd %s\nexec sh -e $WORK/%s\n", line, dir, name)
	}
	a.Comment = []byte(b.String())
	return txtar.Format(a), nil
}

// TestReadmeScriptFails shows the README test catches what it is for: a
// set-up block that is not the known one, and too few blocks.
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
	s, err := readmeScript(good + "\nIn the specstack checkout:\n\n```sh\nx\n```\n\n```sh\ny\n```\n```sh\nz\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cd $CHECKOUT\nexec sh -e $WORK/block-2.sh\n", "cd $WORK/scratch\nexec sh -e $WORK/block-3.sh\n", "-- block-4.sh --\nz\n"} {
		if !strings.Contains(string(s), want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}
