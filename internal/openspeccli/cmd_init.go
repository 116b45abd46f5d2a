package openspeccli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/specwrite"
	"github.com/specstack/specstack/spec"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "Initialize OpenSpec in your project: lay out its tree (openspec/config.yaml, specs/, changes/archive/)",
		ArgsUsage: "[PATH]",
		Description: `Lays out in PATH (default: --repo DIR or the current directory) the spec tree
"openspec init" lays out, byte for byte: openspec/config.yaml (schema
spec-driven, with its commented examples), openspec/specs/ and
openspec/changes/archive/ (each with an empty .gitkeep). The AI-tool files of
"openspec init --tools ..." are not written: use "jj openspec cli -- init" for
those. An existing openspec/ is never touched (exit 2); the tree appears
whole or not at all. In a jj workspace whose @ was blank (empty, no
description) init describes @ "openspec: spec tree (jj openspec init)" and
says so, so that apply can build on it; an @ holding edits or a description
of yours is left as it is. Holds the project's jj-openspec lock.`,
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) > 1 {
				return tooManyArgs(c, 1, len(args))
			}
			dir, err := cliapp.RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			if len(args) == 1 {
				dir = args[0]
				if !filepath.IsAbs(dir) {
					base, err := cliapp.RepoDir(c)
					if err != nil {
						return exitcode.Wrap(exitcode.Usage, err)
					}
					dir = filepath.Join(base, dir)
				}
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return exitcode.New(exitcode.Usage, "init: %s is not a directory: make it first, or name another PATH", dir)
			}
			// A directory under an openspec/ pointing at a store: OpenSpec
			// refuses to scaffold a root that would divert work from it.
			if r, err := spec.FindOpenSpecRoot(dir); err == nil {
				if _, _, ok := r.StoreDeclared(); ok && !r.PlanningShape() {
					return passThrough(c, invocation(c))
				}
			}
			target, described, err := specwrite.Init(c.Context, dir)
			if err != nil {
				return err
			}
			if described != "" {
				// apply refuses an undescribed @ holding files outside the change.
				fmt.Fprintf(cliapp.Stderr(c), "described @ %q: the tree is its change, and `jj openspec apply` builds on it\n", specwrite.InitMessage)
			}
			return cliapp.Emit(c, map[string]any{"root": dir, "created": []string{"openspec/config.yaml", "openspec/specs/", "openspec/changes/archive/"}, "described_working_copy": described != ""}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "created %s: config.yaml (schema: spec-driven), specs/, changes/archive/\nnext: write a change under openspec/changes/NAME/ (proposal.md, tasks.md, specs/), then `jj openspec status NAME`\n", target)
				return err
			})
		},
	}
}
