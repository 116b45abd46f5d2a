package apply

import (
	"context"
	"fmt"
	"io"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/jjx"
	"github.com/specstack/specstack/spec"
)

// Env is where apply works: the orchestrating jj workspace, the OpenSpec
// project in it, the ledger directory (whose lock is the project's
// jj-openspec lock) and the archive journal inside it.
type Env struct {
	Repo    *jjx.Repo
	Root    spec.Root
	Dir     string
	Journal string
	Out     io.Writer
	// Markers lists conflict markers in a change's files (the health
	// check refuses them).
	Markers func(spec.Root, string) ([]spec.Issue, error)
	// Drive runs the engine's remaining phases (the caller shows
	// progress around it); nil runs r.Drive.
	Drive func(context.Context, *engine.Runner) error
	// Member is set for a pipeline member's apply: its messages name
	// the member's workspace and the pipeline's resume (`jj openspec
	// apply`), not `jj openspec apply CHANGE`, which is refused while
	// the pipeline is unfinished.
	Member bool
	// Executor connects the executor a run's options name (nil: local),
	// checked before anything is made; nil when the front end has none.
	Executor func(context.Context, engine.Options) (engine.Executor, error)
}

// connect returns the executor of options o: nil for local.
func (env *Env) connect(ctx context.Context, o engine.Options) (engine.Executor, error) {
	if o.Executor == "" || o.Executor == engine.ExecutorLocal {
		return nil, nil
	}
	if env.Executor == nil {
		return nil, exitcode.New(exitcode.Usage, "executor %q: not available here", o.Executor)
	}
	return env.Executor(ctx, o)
}

// commands are the verbs of the apply's halt messages: a pipeline
// member's are the pipeline's.
func (env *Env) commands(change string) engine.Commands {
	if env.Member {
		return PipelineCommands
	}
	return Commands(change)
}

// fixThen tells a person what to do once they fixed change's apply in
// where(): re-run it, or resume the pipeline it is a member of.
func (env *Env) fixThen(change string) string {
	if env.Member {
		return fmt.Sprintf("Fix it there, then resume the pipeline with `%s`", env.commands(change).Resume)
	}
	return fmt.Sprintf("Fix it in @, then re-run `%s`", env.commands(change).Resume)
}

// where names the place a person fixes the apply's change: @, or a
// pipeline member's workspace (kept when it does not land).
func (env *Env) where() string {
	if env.Member {
		return "@ of its workspace " + env.Repo.Root
	}
	return "@"
}
