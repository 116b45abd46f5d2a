package apply

import (
	"context"

	"github.com/specstack/specstack/internal/engine"
	"github.com/specstack/specstack/internal/ledger"
)

// The apply workflow is the one layer that takes its ledger's lock: it
// acquires it here and hands it to the engine (OpenHeld, ReserveHeld),
// which takes it over and does not lock again.

// openRun locks env's ledger and opens its run.
func openRun(ctx context.Context, env *Env) (*engine.Runner, error) {
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	return engine.OpenHeld(ctx, env.Repo, lock, env.Out)
}

// reserve locks env's ledger for a new run (engine.Reserve's checks).
func reserve(env *Env, fresh bool) (*engine.Reservation, error) {
	lock, err := ledger.Acquire(env.Dir)
	if err != nil {
		return nil, err
	}
	return engine.ReserveHeld(lock, fresh)
}
