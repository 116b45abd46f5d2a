package openspeccli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

// openRoot finds the OpenSpec project for the command: the nearest
// directory holding openspec/ at or above --repo (or the current
// directory). No project is exit 7 (missing). Its Bound, which archive and
// tasks tick never leave through a symbolic link, is the root of the jj
// workspace or git work tree around it, else the project itself.
func openRoot(c *cli.Context) (spec.Root, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return spec.Root{}, exitcode.Wrap(exitcode.Usage, err)
	}
	r, err := spec.FindRoot(dir)
	if err != nil {
		return spec.Root{}, exitcode.Wrap(exitcode.Missing, err)
	}
	if rp, err := repo.Find(r.Dir); err == nil {
		r.Bound = rp.Root
	}
	return r, nil
}

// openOSRoot finds the root for an OpenSpec verb's form as OpenSpec
// 1.13.2 chooses it (spec.FindOpenSpecRoot). With none, where implicit
// holds, the directory itself (its real path) is the root, as OpenSpec's
// status, validate and archive take it (root.source "implicit"); else no
// root is exit 7 (missing), as openRoot's.
// withOSRoot runs an OpenSpec verb on OpenSpec's root (openOSRoot's),
// after printing config.yaml's warning; where only the real CLI can
// find the root, the invocation goes to it.
func withOSRoot(c *cli.Context, implicit bool, run func(spec.Root) error) error {
	r, err := openOSRoot(c, implicit)
	if errors.Is(err, errRealCLI) {
		return passThrough(c, invocation(c))
	}
	if err != nil {
		return err
	}
	if err := warnConfig(c, r); err != nil {
		return err
	}
	return run(r)
}

func openOSRoot(c *cli.Context, implicit bool) (spec.Root, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return spec.Root{}, exitcode.Wrap(exitcode.Usage, err)
	}
	r, err := spec.FindOpenSpecRoot(dir)
	if errors.Is(err, spec.ErrNoRoot) && machineStores() {
		return spec.Root{}, errRealCLI
	}
	if errors.Is(err, spec.ErrNoRoot) && implicit {
		abs, aerr := filepath.Abs(dir)
		if aerr != nil {
			return spec.Root{}, fmt.Errorf("resolve %q: %w", dir, aerr)
		}
		if real, rerr := filepath.EvalSymlinks(abs); rerr == nil {
			abs = real
		}
		r, err = spec.Root{Dir: abs, Implicit: true}, nil
	}
	if err != nil {
		return spec.Root{}, exitcode.Wrap(exitcode.Missing, err)
	}
	if !r.Implicit {
		if err := declaredStore(c, r); err != nil {
			return spec.Root{}, err
		}
	}
	if rp, err := repo.Find(r.Dir); err == nil {
		r.Bound = rp.Root
	}
	return r, nil
}

// machineStores reports whether this machine's OpenSpec configuration can
// supply a root where no directory does: a global defaultStore, or a
// store registry (OpenSpec 1.13.2 then uses the default store, or refuses
// naming the registered stores). Only the real CLI resolves them.
func machineStores() bool {
	if cfg, err := config.XDGDir("XDG_CONFIG_HOME", ".config"); err == nil {
		if b, err := os.ReadFile(filepath.Join(cfg, "openspec", "config.json")); err == nil && bytes.Contains(b, []byte(`"defaultStore"`)) {
			return true
		}
	}
	data, err := config.XDGDir("XDG_DATA_HOME", ".local/share")
	if err != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(data, "openspec", "stores", "registry.yaml"))
	return err == nil && fi.Size() > 0
}

// errRealCLI is a root only the real CLI reads exactly, so the OpenSpec
// verb runs it: its config declares an OpenSpec store and it holds no
// planning files (the store is the root, which only the real CLI
// resolves, through its registry), or, with the real CLI installed, its
// config.yaml is YAML specstack's reader cannot read (OpenSpec's may, or
// fails in words of its own).
var errRealCLI = errors.New("only the real OpenSpec CLI reads this root")

// declaredStore answers a store: declaration in r's config as OpenSpec
// 1.13.2 does: beside specs/ or changes/ it is ignored with OpenSpec's
// warning on stderr; in a config-only openspec/ it names the root,
// errRealCLI. A config.yaml specstack cannot read is errRealCLI too when the
// real CLI is installed and the invocation is OpenSpec's (archive's
// --dry-run and --no-drift-check are jj-openspec's own); otherwise the
// verb goes on, warning in its own words.
func declaredStore(c *cli.Context, r spec.Root) error {
	if r.ConfigUnparsed() && !c.Bool("dry-run") && !c.Bool("no-drift-check") {
		if _, err := openspec.Path(); err == nil {
			return errRealCLI
		}
	}
	store, file, ok := r.StoreDeclared()
	switch {
	case !ok:
		return nil
	case !r.PlanningShape():
		return errRealCLI
	case store != "":
		fmt.Fprintf(cliapp.Stderr(c), "Warning: %s declares store '%s', but this directory is a real OpenSpec root; the declaration is ignored.\n", file, store)
	}
	return nil
}

// oneChange returns the single CHANGE argument.
func oneChange(c *cli.Context) (string, error) {
	args, err := cliapp.Args(c)
	if err != nil {
		return "", err
	}
	if len(args) != 1 {
		return "", exitcode.New(exitcode.Usage, "%s: name one change (see `jj-openspec list`)", c.Command.Name)
	}
	return args[0], nil
}

// classify attaches the documented exit code to a spec error
// (specwrite.Classify).
func classify(err error) error { return specwrite.Classify(err) }

// completeChange prints the active changes' names, for the completion
// scripts, when no CHANGE is typed yet.
func completeChange(c *cli.Context) {
	if c.NArg() > 0 {
		return
	}
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return
	}
	r, err := spec.FindRoot(dir)
	if err != nil {
		return
	}
	names, err := r.ChangeNames()
	if err != nil {
		return
	}
	for _, n := range names {
		fmt.Fprintln(c.App.Writer, n)
	}
}
