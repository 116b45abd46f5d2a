// Package e2e runs the testscript end-to-end suite (testdata/script) against
// the real jj and git, with the three binaries built into the test binary.
package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/fakegh"
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
	"kaisen-fixtures": kaisenFixtures,
	"exits":           exits,
}

func TestMain(m *testing.M) {
	testscript.Main(m, Commands)
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
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	}
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
