// Package actionsworker owns the GitHub Actions workflow that runs one
// specstack worker job on a runner (.github/workflows/specstack-worker.yml):
// its dispatch inputs — the contract between specstack, which dispatches
// it, and the runner — rendering it for a worker, and writing it.
//
// # What a run does
//
// A workflow_dispatch run checks out the job's base (input base_ref),
// installs the worker's agent CLI from npm at the version specstack is
// tested with (agent.Preset.Package@Version; nothing for a command
// worker), and runs the step with id "worker", which:
//
//   - refuses a run whose worker input is not the worker the file was
//     written for (re-run `workflow init --force` after changing it), and
//     a result branch outside specstack/ (the push must never move a
//     branch a person uses);
//   - writes the brief input to $RUNNER_TEMP/specstack/brief.md: the
//     brief travels as a dispatch input and an environment variable,
//     never in the work tree or on a command line;
//   - runs the worker with the SPECSTACK_* variables the local executor
//     sets (internal/engine Job.Env): SPECSTACK_WORKSPACE (the checkout),
//     SPECSTACK_BRIEF, SPECSTACK_REPORT, SPECSTACK_TASK, SPECSTACK_ROLE,
//     SPECSTACK_FINDINGS, SPECSTACK_VERDICTS, SPECSTACK_PIDFILE and
//     SPECSTACK_ARTIFACTS, every file outside the work tree. A command worker runs as `sh -c
//     COMMAND` with stdin closed; an agent preset runs its argv
//     (agent.Preset.Arguments) with the brief on stdin — for a preset the
//     brief input holds the prompt specstack would feed the agent
//     locally — and its final message becomes the report; its
//     credentials come from the repository secrets named as the preset's
//     credential variables (ANTHROPIC_API_KEY, ...);
//   - commits the work tree (git add -A) with the report as the commit
//     message's body, so the report reaches specstack with the result and
//     never enters the tree, and pushes the commit to the result branch;
//     a fixer's verdicts ($SPECSTACK_VERDICTS), when it wrote them, go in
//     the same push as a parentless commit holding answer.json on the
//     answer branch beside it (AnswerBranch);
//   - ends with the worker's exit status: a failed worker fails the run.
//
// # Limits
//
// GitHub takes at most 25 inputs and 65,535 characters of inputs in all
// per dispatch (ghapi.MaxDispatchInputs, ghapi.MaxDispatchInputsSize); the
// brief is the large one, so a brief longer than about 64 KB cannot be
// sent: ghapi refuses the dispatch with an *ghapi.InputsError naming the
// input before anything is sent.
package actionsworker
