package openspeccli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/spec"
)

func tasksCommand() *cli.Command {
	return &cli.Command{
		Name:         "tasks",
		Usage:        "show a change's task groups, their file areas and the fan-out verdict; tick or untick tasks",
		ArgsUsage:    "CHANGE",
		BashComplete: completeChange,
		Description: `Lists the "## " groups of the change's tasks.md with their tasks, the file
area each group's lines name (paths and globs), and the separability
verdict: fan out one worker per group only when at least two groups are
pairwise disjoint, state no ordering dependency on each other, and have at
least --min-group-tasks unchecked tasks (default 2, or [openspec]
min-group-tasks in specstack.toml). Any doubt resolves to a single worker;
the verdict lists its reasons.

"tasks tick CHANGE ID..." and "tasks untick CHANGE ID..." set task boxes by
id (1.2), changing nothing else in the file. They hold the repository's
jj-openspec lock (exit 3 naming the holder when another has it) and refuse
a task file that is a symbolic link out of the repository (exit 6).`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "min-group-tasks", Usage: "a group gets its own worker with at least `N` unchecked tasks (default: [openspec] min-group-tasks, else 2)"},
		},
		Action: runTasks,
		Subcommands: []*cli.Command{
			tickCommand("tick", true),
			tickCommand("untick", false),
		},
	}
}

type tasksReport struct {
	Change   string            `json:"change"`
	Progress spec.TaskProgress `json:"progress"`
	Groups   []groupReport     `json:"groups"`
	Verdict  spec.Verdict      `json:"verdict"`
}

type groupReport struct {
	spec.TaskGroup
	Area           []string `json:"area"`
	Undeterminable bool     `json:"undeterminable"`
}

func runTasks(c *cli.Context) error {
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	r, err := openRoot(c)
	if err != nil {
		return err
	}
	tf, content, err := r.Tasks(name)
	if err != nil {
		return classify(err)
	}
	cfg, err := config.Load(r.Dir)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	min := cfg.OpenSpec.MinGroupTasks
	if c.IsSet("min-group-tasks") {
		min = c.Int("min-group-tasks")
		if min < 1 {
			return exitcode.New(exitcode.Usage, "tasks: --min-group-tasks %d: must be at least 1", min)
		}
	}
	v := spec.Separability(content, spec.SeparabilityOptions{MinGroupTasks: min})
	rep := tasksReport{Change: name, Progress: tf.Progress(), Verdict: v, Groups: []groupReport{}}
	for i, g := range tf.Groups {
		if g.Tasks == nil {
			g.Tasks = []spec.Task{}
		}
		gr := groupReport{TaskGroup: g, Area: v.Groups[i].Area, Undeterminable: v.Groups[i].Undeterminable}
		if gr.Area == nil {
			gr.Area = []string{}
		}
		rep.Groups = append(rep.Groups, gr)
	}
	return cliapp.Emit(c, rep, func(w io.Writer) error { return writeTasks(w, rep, tf) })
}

func writeTasks(w io.Writer, rep tasksReport, tf spec.TasksFile) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", rep.Change, rep.Progress)
	for _, g := range rep.Groups {
		label := g.Title
		if g.Number != "" {
			label = g.Number + ". " + g.Title
		}
		area := strings.Join(g.Area, " ")
		if g.Undeterminable {
			area = "(undeterminable)"
		}
		fmt.Fprintf(&b, "\n## %s    area: %s\n", label, area)
		for _, t := range g.Tasks {
			box := " "
			if t.Checked {
				box = "x"
			}
			fmt.Fprintf(&b, "  [%s] %s\n", box, t.Text)
		}
	}
	if len(tf.Groups) == 0 {
		for _, t := range tf.Tasks {
			box := " "
			if t.Checked {
				box = "x"
			}
			fmt.Fprintf(&b, "  [%s] %s\n", box, t.Text)
		}
	}
	if rep.Verdict.FanOut {
		fmt.Fprintf(&b, "\nverdict: fan out, one worker per group %s\n", strings.Join(rep.Verdict.Workers, ", "))
	} else {
		b.WriteString("\nverdict: single worker\n")
	}
	for _, r := range rep.Verdict.Reasons {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
