// Package openspeccli holds the commands of jj-openspec. Commands are thin:
// they parse flags into a request, call the spec and jjx packages, and
// render the result.
package openspeccli

import (
	"fmt"
	"github.com/specstack/specstack/internal/actionsworker"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/conflictcli"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// openspecVersion is the OpenSpec CLI release whose verbs, flags,
// documents and exit codes jj-openspec reproduces (a drop-in for it);
// testdata/tools/openspec-version pins the same release for the tests.
const openspecVersion = "1.13.2"

// Spec describes the jj-openspec binary.
func Spec() cliapp.Spec {
	s := header()
	s.Doctor = doctorPublishing
	cmds := []*cli.Command{initCommand(), listCommand(), statusCommand(), validateCommand(), checkCommand(), rebaseCommand(), archiveCommand(), applyCommand(), syncCommand(), tasksCommand(), cliCommand(), exploreCommand()}
	fallBackOnUnknownFlags(cmds, "init", "list", "status", "validate", "archive")
	cmds = append(append(cmds, authorCommands()...), conflictcli.CommandsWith(conflictcli.Options{TextMarkers: textMarkers})...)
	s.Commands = append(withRecovery(append(cmds, showCommand(), instructionsCommand(), actionsworker.Command())), passThroughCommands()...)
	s.Flags = []cli.Flag{
		&cli.BoolFlag{Name: "no-color", Usage: "OpenSpec's flag: no colour (jj-openspec's output is plain unless stderr is a terminal)"},
		&cli.BoolFlag{Name: "V", Usage: "print the OpenSpec CLI version jj-openspec stands in for (" + openspecVersion + ") and exit; --version prints jj-openspec's"},
	}
	s.Before = func(c *cli.Context) error {
		if c.Bool("V") {
			fmt.Fprintln(c.App.Writer, openspecVersion)
			return cliapp.Done()
		}
		return nil
	}
	return s
}

func header() cliapp.Spec {
	return cliapp.Spec{
		Name:     "jj-openspec",
		Guide:    "specstack-openspec",
		Examples: examples,
		Usage:    "OpenSpec verbs on jj workspaces",
		Description: `jj-openspec runs OpenSpec verbs on jj workspaces: list, status, validate
and archive natively (with the same results as the OpenSpec CLI), tasks with
their file areas and a separability verdict for per-group fan-out; check
and rebase find changes written against specs that moved since (their base
read from jj or git history) and merge them forward; sync merges a change's
deltas without archiving. apply hands a change to a worker (or one per
separable group) in jj workspaces, verifies, archives and publishes it as a
pull request; propose, new and ff have a worker author a change on
change/<slug>.

Use it as "jj openspec VERB" after:
   jj config set --user aliases.openspec \
       '["util","exec","--","jj-openspec"]'`,
		Skill: skill,
	}
}

// textMarkers lists the files of the open changes of the OpenSpec project
// at the workspace root whose text holds conflict markers (a conflicting
// rebase writes them), for conflicts.
func textMarkers(root string) ([]conflictcli.TextConflict, error) {
	r, err := spec.FindRoot(root)
	if err != nil {
		return nil, nil // no OpenSpec project: nothing of ours to list
	}
	names, err := r.ChangeNames()
	if err != nil {
		return nil, err
	}
	prefix, err := filepath.Rel(root, r.Dir)
	if err != nil {
		return nil, err
	}
	var out []conflictcli.TextConflict
	for _, n := range names {
		issues, err := drift.MarkerIssues(r, n)
		if err != nil {
			return nil, err
		}
		for _, i := range issues {
			p := filepath.ToSlash(filepath.Join(prefix, filepath.FromSlash(i.Path)))
			if k := len(out); k > 0 && out[k-1].Path == p {
				out[k-1].Hunks++
				continue
			}
			out = append(out, conflictcli.TextConflict{Path: p, Hunks: 1, Line: i.Line})
		}
	}
	return out, nil
}
