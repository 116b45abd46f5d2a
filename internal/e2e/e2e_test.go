// Package e2e runs the testscript end-to-end suite (testdata/script) against
// the real jj and git, with the three binaries built into the test binary.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/fakegh"
	"github.com/specstack/specstack/internal/fakemodel"
	"github.com/specstack/specstack/internal/kaisencli"
	"github.com/specstack/specstack/internal/openspeccli"
	"github.com/specstack/specstack/internal/stackcli"
	"github.com/specstack/specstack/internal/testenv"
)

// Commands are the programs scripts can exec, besides those on PATH.
var Commands = map[string]func(){
	"jj-openspec":     func() { os.Exit(cliapp.Run(openspeccli.Spec(), os.Args, os.Stdout, os.Stderr)) },
	"jj-kaisen":       func() { os.Exit(cliapp.Run(kaisencli.Spec(), os.Args, os.Stdout, os.Stderr)) },
	"gh-specstack":    func() { os.Exit(cliapp.Run(stackcli.Spec(), os.Args, os.Stdout, os.Stderr)) },
	"fakegh":          fakegh.Main,
	"fakemodel":       fakemodel.Main,
	"kaisen-fixtures": kaisenFixtures,
	"exits":           exits,
}

// TestMain runs the scripts two per CPU at once unless -parallel says
// otherwise: a script spends much of its time waiting (on jj's and git's
// writes, on children it polls or times out), so two per CPU finish the
// suite sooner than one.
func TestMain(m *testing.M) {
	if !parallelGiven(os.Args[1:]) {
		if f := flag.Lookup("test.parallel"); f != nil {
			_ = f.Value.Set(strconv.Itoa(2 * runtime.GOMAXPROCS(0)))
		}
	}
	testscript.Main(m, Commands)
}

// parallelGiven reports whether args set -test.parallel.
func parallelGiven(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "test.parallel" {
			return true
		}
	}
	return false
}

func TestScripts(t *testing.T) {
	testenv.RequireJJ(t)
	testscript.Run(t, Params(t, filepath.Join("..", "..", "testdata", "script")))
}

// Params returns testscript parameters with an isolated environment.
func Params(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup:               Setup,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"jjcount": jjcount, "jsonkeys": jsonkeys},
		Condition:           condition,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	}
}

// condition adds [agent:NAME]: the agent CLI NAME (claude, codex) is on
// PATH. A missing one is an error, failing the script, when REQUIRE_AGENTS
// is set: scripts skip on [!agent:NAME] only where agents are optional.
func condition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "agent:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	path, err := testenv.FindAgent(name)
	return path != "", err
}

// Setup gives each script a private HOME, fixed identities for jj and git,
// and no access to the user's configuration.
func Setup(env *testscript.Env) error {
	vars, err := testenv.Vars(filepath.Join(env.WorkDir, ".home"))
	if err != nil {
		return err
	}
	for k, v := range vars {
		env.Setenv(k, v)
	}
	return nil
}
