package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/internal/workflow/record"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// screen is apply's check of what a worker that reported done left in
// its workspace, before the engine collects it (engine.Runner.Screen):
//
//   - the change must still be the change: a worker that removed or
//     rewrote the change's proposal.md or anything under its specs/,
//     wrote into the project's main specs (openspec/specs/, changed
//     only by an archive) or into another change's folder, or changed
//     tasks.md beyond its boxes (a task's text, a task removed or
//     added: the tasks it was given are the ones it is judged by) fails
//     its task, naming the files or tasks (its workspace is kept;
//     nothing of it is merged);
//   - a tick is the worker's word, kept only when it is a fact: a box it
//     ticked in another group (under fan-out) is unticked again in its
//     workspace (the other group's worker, and the facts, decide that
//     task), and so is one whose task names files its change did not
//     touch; each is named.
func screen(env *Env, p *Plan, r *engine.Runner) func(context.Context, *engine.TaskState, []string) (engine.Screening, error) {
	return func(ctx context.Context, t *engine.TaskState, files []string) (engine.Screening, error) {
		var sc engine.Screening
		changeDir, err := RepoRel(env, env.Root.ChangeDir(p.Change))
		if err != nil {
			return sc, err
		}
		_, statErr := os.Stat(t.Path)
		gone := statErr != nil
		specsDir, err := RepoRel(env, env.Root.SpecsDir())
		if err != nil {
			return sc, err
		}
		changesDir, err := RepoRel(env, env.Root.ChangesDir())
		if err != nil {
			return sc, err
		}
		what := func(f string) string {
			if _, err := os.Lstat(filepath.Join(t.Path, filepath.FromSlash(f))); gone {
				return "changed"
			} else if errors.Is(err, fs.ErrNotExist) {
				return "removed"
			}
			return "rewrote"
		}
		var touched, elsewhere []string
		for _, f := range files {
			if rel, ok := strings.CutPrefix(f, changeDir+"/"); ok {
				if rel == "proposal.md" || strings.HasPrefix(rel, "specs/") {
					touched = append(touched, what(f)+" "+f)
				}
				continue
			}
			if strings.HasPrefix(f, specsDir+"/") || strings.HasPrefix(f, changesDir+"/") {
				elsewhere = append(elsewhere, what(f)+" "+f)
			}
		}
		if len(touched) > 0 {
			sc.Fail = fmt.Sprintf("its worker %s: the change's own artifacts (proposal.md, specs/) are the change, not a worker's to edit; its workspace %s is kept and nothing of it is merged", strings.Join(touched, ", "), t.Workspace)
			return sc, nil
		}
		if len(elsewhere) > 0 {
			sc.Fail = fmt.Sprintf("its worker %s: the main specs change only by an archive, and other changes are not its own; its workspace %s is kept and nothing of it is merged", strings.Join(elsewhere, ", "), t.Workspace)
			return sc, nil
		}
		tasksPath := changeDir + "/tasks.md"
		if !slices.Contains(files, tasksPath) {
			return sc, nil
		}
		if gone {
			sc.Fail = fmt.Sprintf("its worker edited %s, but its ticks cannot be checked: its workspace %s is gone", tasksPath, t.Workspace)
			return sc, nil
		}
		// The tasks as the worker found them: at its base, or, on a merge
		// of several, in the wave's baseline (@ as the wave started, an
		// empty change on them).
		base := r.State().BaselineCommit
		if len(t.Base) == 1 {
			base = t.Base[0]
		}
		was, now, err := tasksBeforeAfter(ctx, env, p, t, base, tasksPath)
		if err != nil {
			return sc, err
		}
		if diff := rewrittenTasks(was, now); diff != "" {
			sc.Fail = fmt.Sprintf("its worker changed %s beyond its boxes (%s): a worker ticks the tasks it was given and is judged by them; its workspace %s is kept and nothing of it is merged", tasksPath, diff, t.Workspace)
			return sc, nil
		}
		ticks := newTicks(was, now)
		// A tick is the worker's word: one outside its groups is another
		// worker's to make, one whose files its change did not touch
		// is not a fact.
		own := ownGroups(p, t.Num)
		prefix, _ := RepoRel(env, env.Root.Dir)
		var foreign, unproven []string
		for _, task := range ticks {
			switch {
			case own != nil && !slices.Contains(own, strings.TrimLeft(task.Group, "0")):
				foreign = append(foreign, task.ID)
			case len(spec.TaskPaths(task.Text)) > 0 && !touchesNamed(spec.TaskPaths(task.Text), files, prefix):
				unproven = append(unproven, task.ID)
			}
		}
		if len(foreign)+len(unproven) == 0 {
			return sc, nil
		}
		ws, err := workspaceRoot(env, t.Path)
		if err != nil {
			return sc, err
		}
		if _, err := ws.Tick(p.Change, append(slices.Clone(foreign), unproven...), false); err != nil {
			return sc, fmt.Errorf("untick tasks %s in %s: %w", strings.Join(append(slices.Clone(foreign), unproven...), ", "), t.Path, err)
		}
		sc.Edited = true
		var notes []string
		if len(foreign) > 0 {
			notes = append(notes, fmt.Sprintf("reverted its worker's %s outside its %s %s: %s (a worker ticks only its own group's tasks)",
				plural.Word(len(foreign), "tick", "ticks"), plural.Word(len(own), "group", "groups"), strings.Join(own, ", "), strings.Join(foreign, ", ")))
		}
		if len(unproven) > 0 {
			notes = append(notes, fmt.Sprintf("reverted its worker's %s of %s: its change touched no file %s names (a tick needs the task's files changed)",
				plural.Word(len(unproven), "tick", "ticks"), strings.Join(unproven, ", "), plural.Word(len(unproven), "the task", "each task")))
		}
		sc.Note = strings.Join(notes, "; ")
		return sc, nil
	}
}

// ownGroups are the tasks.md groups engine task n's worker was given;
// nil when it was given them all (a single worker).
func ownGroups(p *Plan, n int) []string {
	if len(p.TaskGroups) == 0 || n-1 >= len(p.TaskGroups) || n < 1 {
		return nil
	}
	return p.TaskGroups[n-1]
}

// tasksBeforeAfter reads tasks.md at revision rev (task t's base) and in
// task t's workspace.
func tasksBeforeAfter(ctx context.Context, env *Env, p *Plan, t *engine.TaskState, rev, tasksPath string) (was, now []spec.Task, err error) {
	base, err := env.Repo.FileShow(ctx, jjx.ID(rev), tasksPath)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s at task %d's base %s: %w", tasksPath, t.Num, record.ShortID(rev), err)
	}
	ws, err := workspaceRoot(env, t.Path)
	if err != nil {
		return nil, nil, err
	}
	after, _, err := ws.Tasks(p.Change)
	if err != nil {
		return nil, nil, fmt.Errorf("read the tasks in task %d's workspace %s: %w", t.Num, t.Path, err)
	}
	return spec.ParseTasks(string(base)).Tasks, after.Tasks, nil
}

// rewrittenTasks says how the tasks now differ from the tasks was but for
// their boxes (the first few differences: a task's text changed, a task
// removed, a task added), "" when they do not.
func rewrittenTasks(was, now []spec.Task) string {
	name := func(t spec.Task) string {
		if t.ID != "" {
			return t.ID
		}
		return fmt.Sprintf("%q", t.Text)
	}
	var diffs []string
	for i := 0; i < max(len(was), len(now)) && len(diffs) < 3; i++ {
		switch {
		case i >= len(now):
			diffs = append(diffs, "removed "+name(was[i]))
		case i >= len(was):
			diffs = append(diffs, "added "+name(now[i]))
		case was[i].ID != now[i].ID:
			diffs = append(diffs, fmt.Sprintf("%s became %s", name(was[i]), name(now[i])))
		case was[i].Text != now[i].Text:
			diffs = append(diffs, fmt.Sprintf("%s's text changed to %q", name(was[i]), now[i].Text))
		}
	}
	return strings.Join(diffs, "; ")
}

// newTicks lists the tasks (with an id) of now ticked that were not
// ticked in was.
func newTicks(was, now []spec.Task) []spec.Task {
	before := map[string]bool{}
	for _, task := range was {
		if task.ID != "" {
			before[task.ID] = task.Checked
		}
	}
	var ticked []spec.Task
	for _, task := range now {
		if task.Checked && task.ID != "" && !before[task.ID] {
			ticked = append(ticked, task)
		}
	}
	return ticked
}

// workspaceRoot is the OpenSpec project as it is in the jj workspace at
// path (a project in a subfolder of the repository is there too).
func workspaceRoot(env *Env, path string) (spec.Root, error) {
	rel, err := RepoRel(env, env.Root.Dir)
	if err != nil {
		return spec.Root{}, err
	}
	return spec.Root{Dir: filepath.Join(path, filepath.FromSlash(rel)), Bound: path}, nil
}
