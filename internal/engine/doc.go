// Package engine is specstack's shared orchestration engine: tasks with
// file areas and dependencies become waves or a frontier, are dispatched
// to workers in workspaces with bounded parallelism, collected, gated and
// integrated, with every step recorded in a ledger.
//
// It has two layers.
//
// The first knows nothing of jj and serves all three binaries:
//   - scheduling: Waves (order-keeping greedy colouring of the overlap
//     graph), Overlaps, Parallelism, Frontier and RunFrontier (start what
//     is ready as dependencies complete, for gh-specstack);
//   - dispatch: Parallel (bounded), Job and RunJob (the worker protocol:
//     sh -c in the workspace, stdin closed, SPECSTACK_* variables, its own
//     process group, timeout, log file; every job is built in job.go, so
//     step mode's `fan-out --json` prints exactly what the driver runs)
//     and StopOrphan;
//   - workspaces: Backend, a task workspace's life (provision at a base,
//     repairing a half-made one; check it against what was asked; refresh,
//     reset, collect files and lines from the VCS, integrate, release) and
//     the target it is integrated into (head, tip, changed files, diff,
//     conflicts), with JJBackend (jj workspaces, squash into @);
//     GitBackend holds its provision, collect and release part on git
//     worktrees (gh-specstack's tickets in a git clone);
//     TestBackendContract holds both to that part, JJBackend to the whole;
//   - results: Outcome (a worker's exit code, then its "Status:" line:
//     no status is not done) and ReadFindings
//     (a reviewer's JSON findings).
//
// The second is Runner: a whole run through a Backend (jj-kaisen's is the
// jj backend), as jj-kaisen drives it and jj-openspec's per-group fan-out
// can (give Start the groups as tasks with their areas as files, and
// Binary "jj-openspec"): Reserve (the ledger lock, no unfinished run),
// Start (header, briefs), then per wave Provision, Dispatch, Integrity,
// Review (tests, reviewers, fix loop) and FanIn (integrate smallest-first,
// conflicts), then Gate and Complete; Drive runs whatever the ledger says
// is left, so a killed or halted run resumes, and step commands
// (CollectWave, RecordReview, …) share the same ledger. Abort restores the
// start operation. Tests and the final gate leave receipts (command, exit,
// output digest, role, tree) and a passing receipt for the same command
// and tree is reused; BuildLog renders the ledger with the Breakpoint
// resume continues from. Abort and the naming of a leak's operation need
// a backend with an operation log (Undoer: jj), and so does finding a
// worker's rewrite of history outside its workspace (Historian). Nothing
// a worker says is taken for what the repository shows: Collect fails a
// task whose workspace is broken (files jj refused to snapshot, its .jj
// gone) and Integrity one another worker wrote into.
package engine
