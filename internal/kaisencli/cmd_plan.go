package kaisencli

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
)

var taskFlag = &cli.StringSliceFlag{Name: "task", Usage: "an ad-hoc task `TEXT` instead of a plan file (repeatable)"}

func planCommand() *cli.Command {
	return &cli.Command{
		Name:         "plan",
		Usage:        "show a plan's tasks, overlaps, waves, parallelism and pre-flight findings (read-only)",
		ArgsUsage:    "PLAN",
		BashComplete: cliapp.CompleteSuffix(".md"),
		Description: `Reads PLAN (tasks as "### Task N: title" headings naming their files with
"Files: a.txt, b.txt" or a **Files:** list of Create:/Modify:/Test:/Delete:
paths, or a plain markdown list) or the --task flags (whose tasks name files
with Modify:/Create: lines or backticked paths), and prints the overlap graph and the waves: each task goes to the
earliest wave after the waves of every earlier task it shares a file with, so
overlapping tasks never run together and always run in plan order. Warns when
the largest wave holds under 40% of the tasks, and lists the findings of a
mechanical scan: two tasks creating one file, a task naming no files, a line
that starts like a file list but names no file (with the accepted forms), a
Modify: path missing at the base, a heading that looks like a task's but is
not one ("### Taks 1: alpha": its section runs as no task). Changes nothing. ` + "`jj kaisen init`" + ` writes
an example plan.`,
		Flags: []cli.Flag{taskFlag},
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) > 1 {
				return exitcode.New(exitcode.Usage, "plan takes one PLAN file, got %d arguments", len(args))
			}
			p, label, err := loadPlan(first(args), c.StringSlice("task"))
			if err != nil {
				return err
			}
			dir, err := cliapp.RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			repo, err := jjx.Open(c.Context, dir)
			if errors.Is(err, jjx.ErrNotWorkspace) || errors.Is(err, jjx.ErrNotFound) {
				repo = nil // no repository at hand: the view says the base was not checked
			} else if err != nil {
				return err
			}
			v, err := engine.BuildPlanView(c.Context, p, label, repo)
			if err != nil {
				return err
			}
			return cliapp.Emit(c, v, v.Text)
		},
	}
}

func briefCommand() *cli.Command {
	return &cli.Command{
		Name:         "brief",
		Usage:        "print task N's full text with the plan's preamble prepended",
		ArgsUsage:    "PLAN N",
		BashComplete: cliapp.CompleteSuffix(".md"),
		Description: `Prints the brief a worker gets for task N: the plan's preamble (goal, global
constraints, shared definitions) followed by the task's full text, so that the
brief stands alone.`,
		Action: func(c *cli.Context) error {
			args, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(args) != 2 {
				return exitcode.New(exitcode.Usage, "brief takes PLAN and a task number N")
			}
			n, err := strconv.Atoi(args[1])
			if err != nil || n <= 0 {
				return exitcode.New(exitcode.Usage, "task number %q is not a positive integer", args[1])
			}
			p, _, err := loadPlan(args[0], nil)
			if err != nil {
				return err
			}
			b, err := p.Brief(n)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			return cliapp.Emit(c, map[string]any{"task": n, "brief": b}, func(w io.Writer) error {
				_, err := fmt.Fprint(w, b)
				return err
			})
		},
	}
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
