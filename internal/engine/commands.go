package engine

import "fmt"

// Commands are the command lines a halted or finished run tells a person
// to run next. The engine serves several front ends (jj kaisen, jj
// openspec apply, …), each with its own verbs, so the caller names them;
// the zero value is jj-kaisen's.
type Commands struct {
	// Resume continues the run ("jj kaisen resume").
	Resume string
	// Abort undoes the run ("jj kaisen abort").
	Abort string
	// Status shows the run, its workspaces included ("jj kaisen status").
	Status string
	// Sweep releases the workspaces a run kept for inspection; empty
	// when the front end has no such verb (then Abort is named).
	Sweep string
	// Gate re-runs the final gate alone; empty names Resume.
	Gate string
	// Rebaseline resumes accepting @ as the new baseline after a failed
	// integrity check; empty when the front end cannot (then only
	// putting @ back and Resume are offered).
	Rebaseline string
	// ReviewRecord records a review verdict by hand ("… --task N
	// --passed" is appended); empty when the front end has none.
	ReviewRecord string
	// ConfidenceOverride resumes passing a low-confidence review ("
	// \"REASON\"" is appended); empty when the front end has none.
	ConfidenceOverride string
	// Retry runs some of a plan's tasks again in a new run ("jj kaisen
	// run PLAN --only N,M", the plan and the list filled in by Sprintf);
	// empty when the front end has none.
	Retry string
}

// KaisenCommands are jj-kaisen's verbs, the default.
var KaisenCommands = Commands{
	Resume:             "jj kaisen resume",
	Abort:              "jj kaisen abort",
	Status:             "jj kaisen status",
	Sweep:              "jj kaisen sweep --all",
	Gate:               "jj kaisen gate",
	Rebaseline:         "jj kaisen resume --rebaseline",
	ReviewRecord:       "jj kaisen review record",
	ConfidenceOverride: "jj kaisen resume --confidence-override",
	Retry:              "jj kaisen run %s --only %s",
}

// commands are the run's front end's verbs (jj-kaisen's when unset).
func (r *Runner) commands() Commands {
	if r.Commands == (Commands{}) {
		return KaisenCommands
	}
	return r.Commands
}

// gateHint names how to re-run the final gate.
func (r *Runner) gateHint() string {
	c := r.commands()
	if c.Gate == "" {
		return "`" + c.Resume + "`"
	}
	return fmt.Sprintf("`%s` or `%s`", c.Gate, c.Resume)
}
