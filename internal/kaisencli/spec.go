// Package kaisencli holds the commands of jj-kaisen. Commands are thin:
// they parse flags into a request, call the engine, and render the result.
package kaisencli

import (
	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/conflictcli"
)

// Spec describes the jj-kaisen binary.
func Spec() cliapp.Spec {
	return cliapp.Spec{
		Name:     "jj-kaisen",
		Guide:    "specstack-kaisen",
		Examples: examples,
		Usage:    "run a plan's tasks in waves across jj workspaces",
		Description: `jj-kaisen runs a plan's tasks in parallel jj workspaces, in waves that never
run two tasks touching the same file at once; a worker command you configure
does each task, a reviewer command reviews it, and the approved changes are
squashed back into @ smallest-first and gated by the full test suite. Runs
are recorded in a ledger under .jj/specstack/jj-kaisen/, resumable and
abortable.

A run (run, resume, gate) exits 0 when every task was merged or its change
was empty (reported "empty"), 9 when it completed with a task not merged
(each named with why; its workspace is kept), 8 when the final gate is red.
While a run is live, the verbs that change the ledger (run, start, resume,
abort, sweep and the step verbs) exit 3 naming the pid that holds the ledger
lock; status, log and artifacts take no lock and answer. An unfinished run
nobody drives makes run and start exit 5 (resume, abort or --fresh). abort
of a complete run, of one whose @ was edited since the run last recorded
it, or of one during which someone made changes elsewhere in the
repository, lists what would be lost and needs --yes (else exit 5).

Use it as "jj kaisen VERB" after:
   jj config set --user aliases.kaisen '["util","exec","--","jj-kaisen"]'`,
		Commands: append(commands(), conflictcli.Commands()...),
		Skill:    skill,
		Doctor:   doctorExecutor,
	}
}
