package cmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/xec"
)

// TestInstallTools: `make install` (testdata/tools/install) installs what
// the main jobs run that is not on PATH — the OpenSpec CLI (`jj openspec
// cli`) and gh (`gh specstack`) — from the copies `make test` provisions
// (SPECSTACK_CACHE, so no network), saying so; then `jj-openspec cli`
// works with only the installed bin on PATH. Issue 27: they stayed in
// the cache, off PATH.
func TestInstallTools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and installs them")
	}
	cache := os.Getenv("SPECSTACK_CACHE")
	for _, p := range []string{"openspec/node_modules/.bin/openspec", "gh/bin/gh"} {
		if _, err := os.Stat(filepath.Join(cache, p)); cache == "" || err != nil {
			t.Skipf("SPECSTACK_CACHE=%q holds no %s: run `make test` (or `make tools`) first", cache, p)
		}
	}
	if _, err := xec.LookPath("npm"); err != nil {
		t.Skip("no npm: install leaves openspec out, as it says")
	}
	// PATH without openspec or gh (node, npm and jj stay).
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if !exists(filepath.Join(d, "openspec")) && !exists(filepath.Join(d, "gh")) {
			dirs = append(dirs, d)
		}
	}
	path := strings.Join(dirs, string(os.PathListSeparator))
	build := buildBinaries(t)
	prefix := t.TempDir()
	install := func() string {
		var out, stderr bytes.Buffer
		err := xec.Run(t.Context(), xec.Cmd{Name: "bash", Args: []string{"testdata/tools/install", build, prefix}, Dir: "..",
			Env: []string{"PATH=" + path, "CACHE=" + cache}, Stdout: &out, Stderr: &stderr, Timeout: 5 * time.Minute})
		if err != nil {
			t.Fatalf("install: %v\n%s%s", err, out.String(), stderr.String())
		}
		return out.String()
	}
	out := install()
	for _, want := range []string{"\ninstalled openspec 1.", "\ninstalled gh ", "gh-specstack install-extension"} {
		if !strings.Contains(out, want) {
			t.Errorf("install's output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, " openspec gh into "+prefix+"/bin;") {
		t.Errorf("install's last line does not name openspec and gh:\n%s", out)
	}
	bin := filepath.Join(prefix, "bin")
	path = bin + string(os.PathListSeparator) + path
	proj := filepath.Join(prefix, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "openspec"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"openspec", "--version"}, {"gh", "--version"}, {"jj-openspec", "cli", "--", "--version"}} {
		got, err := xec.Output(t.Context(), xec.Cmd{Name: filepath.Join(bin, c[0]), Args: c[1:], Dir: proj, Env: []string{"PATH=" + path}, Timeout: time.Minute})
		if err != nil {
			t.Errorf("%s after install: %v", strings.Join(c, " "), err)
		} else if len(bytes.TrimSpace(got)) == 0 {
			t.Errorf("%s after install printed nothing", strings.Join(c, " "))
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
