package openspeccli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/testenv"
)

// TestBrokenConfigWarns: an openspec/config.yaml that does not parse is
// ignored with a warning on stderr naming the file and the line, as
// OpenSpec does; it is not fatal, so every command ends as it would
// without the file. With no OpenSpec CLI on PATH the warning is
// jj-openspec's (with the CLI, the OpenSpec verbs hand such a file to it:
// openspec_dropin_config).
func TestBrokenConfigWarns(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"status", "c"}, {"validate", "c"}, {"archive", "--dry-run", "c"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := project(t)
			_, _, cleanCode := testenv.RunSoon(t, 20*time.Second, openspeccli.Spec(), append([]string{"jj-openspec", "--repo", dir}, args...)...)
			config := filepath.Join(dir, "openspec", "config.yaml")
			if err := os.WriteFile(config, []byte("schema: spec-driven\ncontext: \"unterminated\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := testenv.RunSoon(t, 20*time.Second, openspeccli.Spec(), append([]string{"jj-openspec", "--repo", dir}, args...)...)
			if code != cleanCode || code != exitcode.OK {
				t.Errorf("exit %d with the broken config, %d without (want both 0: the config is not fatal)\nstderr: %s", code, cleanCode, errOut)
			}
			want := "Warning: could not parse " + config + " (line 2: unterminated string); ignoring it.\n"
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		})
	}
}
