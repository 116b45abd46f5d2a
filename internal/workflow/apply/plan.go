// Package apply is jj-openspec's implementing shape: one OpenSpec change
// handed to one worker, or to one worker per separable tasks.md group, in
// jj workspaces through the shared engine (internal/engine), then the
// reconcile tail run once over the integrated change: verify gate
// (receipts), tasks ticked by facts, native archive into the same change,
// the feat/<slug> bookmark pushed publish-once and a pull request opened
// or updated with the archived proposal as its body.
//
// The run lives in the engine's ledger (.jj/specstack/jj-openspec/), with
// the apply plan beside it (apply.toml) and the tail's steps recorded as
// events, so a killed apply resumes where it stopped and status, log and
// abort read and undo it with the engine's code.
package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/plural"
	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// Distributions.
const (
	Auto   = "auto"
	Single = "single"
	FanOut = "fan-out"
)

// PlanFile is the apply plan beside the engine's ledger.
const PlanFile = "apply.toml"

// Plan is what an apply was asked and decided before any worker started:
// written once (atomically) when the run starts, read by resume, status
// and abort.
type Plan struct {
	Version      int    `toml:"version" json:"-"`
	RunID        string `toml:"run_id" json:"run_id"`
	Change       string `toml:"change" json:"change"`
	Bookmark     string `toml:"bookmark" json:"bookmark"`
	Distribution string `toml:"distribution" json:"distribution"` // single or fan-out
	// Level is the routing level (LevelStandard or LevelRisk) and
	// LevelReasons why; empty in plans written before routing levels.
	Level        string   `toml:"level,omitempty" json:"level,omitempty"`
	LevelReasons []string `toml:"level_reasons,omitempty" json:"level_reasons,omitempty"`
	Reasons      []string `toml:"reasons" json:"reasons"`
	// Groups are the fanned-out tasks.md groups, in task order; empty for
	// a single worker.
	Groups []string `toml:"groups,omitempty" json:"groups,omitempty"`
	// TaskGroups lists, per engine task (index task-1), the groups whose
	// tasks its worker was given; empty for a single worker (all).
	TaskGroups [][]string `toml:"task_groups,omitempty" json:"-"`
	// Base is the change ID of the revision holding the change's
	// artifacts; workers start from it.
	Base string `toml:"base" json:"base"`
	// Described is set when apply described @ to name the artifacts'
	// revision.
	Described bool     `toml:"described,omitempty" json:"described,omitempty"`
	Verify    []string `toml:"verify" json:"verify"`
	Reviewer  string   `toml:"reviewer,omitempty" json:"reviewer,omitempty"`
	NoPush    bool     `toml:"no_push,omitempty" json:"no_push"`
	// NoPR: push only, open no pull request (--no-pr, [openspec] pr =
	// false).
	NoPR    bool   `toml:"no_pr,omitempty" json:"no_pr"`
	Yes     bool   `toml:"yes,omitempty" json:"-"`
	Tracker string `toml:"tracker,omitempty" json:"tracker,omitempty"`
	// PRBase is the pull request's base branch; "" for the default branch.
	PRBase string `toml:"pr_base,omitempty" json:"pr_base,omitempty"`
	// PreOp is the operation before apply changed anything (before the
	// describe): abort restores it.
	PreOp string `toml:"pre_op" json:"pre_op"`
}

// ReadPlan reads the apply plan of ledger directory dir; ok is false when
// there is none.
func ReadPlan(dir string) (*Plan, bool, error) {
	return ledger.ReadOptional[Plan](filepath.Join(dir, PlanFile))
}

func WritePlan(dir string, p *Plan) error {
	p.Version = 1
	return ledger.WriteFile(filepath.Join(dir, PlanFile), p)
}

// Slug is the bookmark-safe short form of a change name.
func Slug(name string) string {
	s := strings.ToLower(name)
	s = slugRe.ReplaceAllString(s, "-")
	s = strings.Trim(s, "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	return s
}

var slugRe = lazyregexp.New(`[^a-z0-9._-]+`)

// BookmarkOf is the bookmark change lands under: feat/<slug>.
func BookmarkOf(change string) string { return "feat/" + Slug(change) }

// ResolveChange returns name when given; else the only active change with
// Unticked tasks; else exit 5 listing the candidates.
func ResolveChange(r spec.Root, name string) (string, error) {
	if name != "" {
		return name, nil
	}
	cs, err := r.ListChanges(true)
	if err != nil {
		return "", err
	}
	var open, all []string
	for _, c := range cs {
		if len(c.Nested) > 0 {
			continue
		}
		all = append(all, c.Name)
		if c.TotalTasks > c.CompletedTasks {
			open = append(open, c.Name)
		}
	}
	switch {
	case len(open) == 1:
		return open[0], nil
	case len(open) > 1:
		return "", exitcode.New(exitcode.NeedsChoice, "name the change to apply: %s %s unticked tasks (%s)", plural.Count(len(open), "change", "changes"), plural.Word(len(open), "has", "have"), strings.Join(open, ", "))
	case len(all) > 0:
		return "", exitcode.New(exitcode.NeedsChoice, "name the change to apply: no change has unticked tasks (active: %s)", strings.Join(all, ", "))
	}
	return "", exitcode.New(exitcode.NeedsChoice, "no active change under %s: author one first (`jj openspec propose NAME --worker CMD`)", r.ChangesDir())
}

// CheckReady refuses a change that is missing or not apply-ready by its
// schema (exit 2 / 6), naming the artifacts to author first.
func CheckReady(r spec.Root, name string) (spec.ChangeStatus, error) {
	st, err := r.Status(name)
	if errors.Is(err, spec.ErrChangeNotFound) {
		return st, exitcode.Wrap(exitcode.Usage, err)
	}
	if err != nil {
		return st, exitcode.Wrap(exitcode.Invalid, err)
	}
	if !st.ApplyReady {
		var missing []string
		for _, a := range st.Artifacts {
			if !a.Done {
				missing = append(missing, fmt.Sprintf("%s (%s)", a.ID, a.Generates))
			}
		}
		return st, exitcode.New(exitcode.Invalid, "change %q is not ready to apply (schema %s): %s; author these first (`jj openspec propose %s --worker CMD`), then apply",
			name, st.Schema, strings.Join(missing, ", "), name)
	}
	return st, nil
}

// Blocker is a failed health check: the change is malformed. It is
// reported in its own format, distinct from a worker's failure, and
// nothing was provisioned.
type Blocker struct {
	Change string
	Issues []spec.Issue
	// By names the validator when it is not the native one (the
	// OpenSpec CLI, for a project schema).
	By string
}

func (b *Blocker) Error() string {
	var s strings.Builder
	fmt.Fprintf(&s, "BLOCKER (health check): change %q is malformed; nothing was provisioned, no bookmark moved, nothing pushed\n", b.Change)
	if b.By != "" {
		fmt.Fprintf(&s, "  validated by %s\n", b.By)
	}
	for _, i := range b.Issues {
		loc := i.Path
		if i.Line > 0 {
			loc = fmt.Sprintf("%s:%d", i.Path, i.Line)
		}
		fmt.Fprintf(&s, "  [%s] %s: %s\n", i.Level, loc, i.Message)
	}
	s.WriteString("fix the change artifacts and re-dispatch")
	return s.String()
}

// HealthCheck is CheckHealth without a caller's context (the CLI, when
// the schema needs it, still runs under CLIValidateTimeout).
func HealthCheck(r spec.Root, name string, markers func(spec.Root, string) ([]spec.Issue, error)) error {
	return CheckHealth(context.Background(), r, name, markers)
}

// CheckHealth validates an existing change before anything is
// provisioned: natively (the checks of `openspec validate`) when its
// schema is the built-in spec-driven, through the real OpenSpec CLI
// (openspec.Run: its allow-list, a deadline) when it is a project schema
// the native validator does not cover (NeedsCLI); conflict markers are
// refused either way. A failure is a *Blocker with exit 6; a CLI that is
// missing or cannot run is an error of its own (exit 7 / 1), never a
// pass.
func CheckHealth(ctx context.Context, r spec.Root, name string, markers func(spec.Root, string) ([]spec.Issue, error)) error {
	schema, viaCLI, err := NeedsCLI(r, name)
	if err != nil {
		return exitcode.Wrap(exitcode.Invalid, err)
	}
	var issues []spec.Issue
	var valid bool
	by := ""
	if viaCLI {
		by = fmt.Sprintf("the OpenSpec CLI (`openspec validate %s`): schema %s is a project schema", name, schema)
		valid, issues, err = validateWithCLI(ctx, r, name)
		if err != nil {
			return err
		}
	} else {
		rep, err := r.ValidateChange(name, spec.ValidateOptions{MainSpecs: true, Tasks: true}, false)
		if err != nil {
			return exitcode.Wrap(exitcode.Invalid, err)
		}
		if !rep.Valid && drift.StaleSince(ctx, r, name) {
			// Written against specs edited since: checked against the
			// main specs it would be refused for what the archive's
			// forward merge settles (a scenario added on trunk). The
			// change is judged alone; the merge and the archive (which
			// validates every rebuilt spec) judge it against them.
			rep, err = r.ValidateChange(name, spec.ValidateOptions{Tasks: true}, false)
			if err != nil {
				return exitcode.Wrap(exitcode.Invalid, err)
			}
		}
		issues, valid = rep.Issues, rep.Valid
	}
	if markers != nil {
		m, err := markers(r, name)
		if err != nil {
			return err
		}
		if len(m) > 0 {
			issues, valid = append(m, issues...), false
		}
	}
	if valid {
		return nil
	}
	var shown []spec.Issue
	for _, i := range issues {
		if i.Level == spec.LevelError || i.Level == spec.LevelWarning {
			shown = append(shown, i)
		}
	}
	return exitcode.Wrap(exitcode.Invalid, &Blocker{Change: name, Issues: shown, By: by})
}

// Decision is the distribution chosen and why.
type Decision struct {
	Distribution string         `json:"distribution"`
	Reasons      []string       `json:"reasons"`
	Verdict      spec.Verdict   `json:"verdict"`
	Tasks        []engine.Task  `json:"-"`
	Waves        [][]int        `json:"-"`
	Briefs       map[int]string `json:"-"`
	Groups       []string       `json:"groups,omitempty"`
	TaskGroups   [][]string     `json:"-"`
	// Open counts the change's unticked tasks (of every group).
	Open int `json:"-"`
}

// Decide picks the distribution (asked: auto, single or fan-out) from the
// separability verdict of the change's tasks.md and builds the engine's
// tasks, waves and briefs: one task for a single worker; for fan-out one
// task per separable group in wave 1 and, when separable groups are under
// the size gate, one more task for them in wave 2, on the integrated
// result.
func Decide(r spec.Root, name, asked string, minGroupTasks int) (Decision, error) {
	tf, content, err := r.Tasks(name)
	if err != nil {
		return Decision{}, exitcode.Wrap(exitcode.Invalid, err)
	}
	v := spec.Separability(content, spec.SeparabilityOptions{MinGroupTasks: minGroupTasks})
	d := Decision{Verdict: v, Briefs: map[int]string{}, Open: len(openTasks(tf, nil))}
	switch asked {
	case "", Auto:
		d.Distribution = Single
		if v.FanOut {
			d.Distribution = FanOut
		}
		d.Reasons = v.Reasons
	case Single:
		d.Distribution = Single
		d.Reasons = []string{"--distribution single"}
	case FanOut:
		if !v.FanOut {
			return d, exitcode.New(exitcode.NeedsChoice, "--distribution fan-out: change %q is not separable: %s; run with --distribution auto or single", name, strings.Join(v.Reasons, "; "))
		}
		d.Distribution = FanOut
		d.Reasons = append([]string{"--distribution fan-out"}, v.Reasons...)
	default:
		return d, exitcode.New(exitcode.Usage, "--distribution %q: give auto, single or fan-out", asked)
	}
	areas := map[string][]string{}
	titles := map[string]string{}
	for _, g := range v.Groups {
		areas[g.Number], titles[g.Number] = g.Area, g.Title
	}
	if d.Distribution == Single {
		var files []string
		for _, g := range v.Groups {
			files = append(files, g.Area...)
		}
		d.Tasks = []engine.Task{{Num: 1, Title: "Implement change " + name, Files: uniq(files)}}
		d.Waves = [][]int{{1}}
		d.Briefs[1] = brief(name, openTasks(tf, nil), false)
		return d, nil
	}
	var wave1 []int
	for i, g := range v.Workers {
		n := i + 1
		d.Tasks = append(d.Tasks, engine.Task{Num: n, Title: fmt.Sprintf("Group %s: %s", g, titles[g]), Files: areas[g]})
		d.Briefs[n] = brief(name, openTasks(tf, []string{g}), true)
		wave1 = append(wave1, n)
		d.TaskGroups = append(d.TaskGroups, []string{g})
	}
	d.Groups = slices.Clone(v.Workers)
	d.Waves = [][]int{wave1}
	if len(v.Later) > 0 {
		n := len(d.Tasks) + 1
		var files []string
		for _, g := range v.Later {
			files = append(files, areas[g]...)
		}
		d.Tasks = append(d.Tasks, engine.Task{Num: n, Title: "Groups " + strings.Join(v.Later, ", "), Files: uniq(files)})
		d.Briefs[n] = brief(name, openTasks(tf, v.Later), true)
		d.Waves = append(d.Waves, []int{n})
		d.Groups = append(d.Groups, v.Later...)
		d.TaskGroups = append(d.TaskGroups, slices.Clone(v.Later))
	}
	return d, nil
}

// openTasks lists the unticked tasks of groups (every group when nil).
func openTasks(tf spec.TasksFile, groups []string) []spec.Task {
	var out []spec.Task
	for _, t := range tf.Tasks {
		if t.Checked {
			continue
		}
		if groups != nil && !slices.Contains(groups, strings.TrimLeft(t.Group, "0")) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// brief is a worker's instructions; task text travels only in this file.
func brief(change string, tasks []spec.Task, scoped bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Implement OpenSpec change %s\n\n", change)
	fmt.Fprintf(&b, "The change's artifacts (proposal.md, design.md, specs/, tasks.md) are in\nopenspec/changes/%s/ of this workspace. Implement the tasks below, here only,\nand tick each one you complete in openspec/changes/%s/tasks.md (\"- [ ]\"\nbecomes \"- [x]\"). Do not archive, verify, push or describe: jj-openspec does.\n", change, change)
	if scoped {
		b.WriteString("\nOther workers implement the change's other groups at the same time: change\nonly the files of your tasks and tick ONLY your own tasks' boxes.\n")
	}
	b.WriteString("\nWrite your report to $SPECSTACK_REPORT with a line \"Status: DONE\" (or\nDONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT).\n\n## Tasks\n\n")
	for _, t := range tasks {
		fmt.Fprintf(&b, "- [ ] %s\n", t.Text)
	}
	return b.String()
}

func uniq(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}
