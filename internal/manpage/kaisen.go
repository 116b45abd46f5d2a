package manpage

// kaisenPage is the part of jj-kaisen's page the command definitions do
// not hold.
const kaisenPage = `# PLAN FORMAT
A plan is a Markdown file: a preamble (the goal and the constraints every
task shares, prepended to each task's brief), then numbered tasks headed
"### Task N: title" or "## Task N title". A task's **Files:** list names the
files it touches, one per item, each "Create:", "Modify:" or "Test:" and a
path in backticks (a line range such as src/a.ts:10-40 is allowed). Tasks
that share a file never run in the same wave: each task goes to the earliest
wave after those of the earlier tasks it shares a file with. A plain Markdown
list, or repeated --task TEXT, is an ad-hoc plan whose items are the tasks.
"jj kaisen plan PLAN" shows the waves and the pre-flight findings (two tasks
creating one file, a task naming no files, a Modify: path missing at the
base, a heading that looks like a task's but is not one, such as "### Taks
1: alpha", whose section no task runs) and changes nothing; run needs --yes
for the last kind, a task naming no files, or a file line it cannot read.

    # Widgets

    Add the widget modules. Keep every file under 200 lines.

    ### Task 1: Widget model
    **Files:**
    - Create: ` + "`src/widget.ts`" + `
    - Test: ` + "`src/widget.test.ts`" + `

    Define the Widget type and its constructor.

    ### Task 2: Widget API
    **Files:**
    - Modify: ` + "`src/widget.ts:10-40`" + `
    - Create: ` + "`src/api.ts`" + `

    Expose widgets over the API (runs after task 1: both touch widget.ts).

# WORKER PROTOCOL
A worker is a command (--worker, --reviewer, or [worker] command and
reviewer) run by sh -c with the task's workspace as working directory,
stdin closed, in its own process group (a timeout or a signal kills all it
started), its stdout and stderr appended to the task's log. Task text never
enters a command line: it reaches the worker in files named by these
variables.

+ SPECSTACK_WORKSPACE
the task's jj workspace (also the working directory)

+ SPECSTACK_BRIEF
a file: the plan's preamble and the task's text (a fixer's brief adds the
findings to fix, a reviewer's says what to judge)

+ SPECSTACK_REPORT
the file the worker writes its report to (see Report below)

+ SPECSTACK_TASK
the task number (a reviewer of several tasks gets them comma-separated)

+ SPECSTACK_ROLE
implementer, fixer or reviewer

+ SPECSTACK_FINDINGS
a reviewer writes its findings there; a fixer reads the findings to fix

+ SPECSTACK_DIFF
reviewers only: a file holding the diff to judge (the whole change, or
exactly a fix's delta on a re-review)

+ SPECSTACK_PRIOR_WAVES
from wave 2: a file saying what earlier waves merged

+ SPECSTACK_ARTIFACTS
the run's artifacts directory (briefs, reports, logs, findings)

+ SPECSTACK_PIDFILE
where the wrapper records the worker's process group, so that a resumed
run can stop a worker a killed run left; workers leave it alone

## Report
Plain text or Markdown. The last line of the form "Status: X" decides
(fixers append to the implementer's report); X is DONE,
DONE_WITH_CONCERNS, BLOCKED or NEEDS_CONTEXT. A worker that exits
without a status fails its task. The change, the files touched and the
test results are read from jj and the test commands, never taken from the
report.

    Status: DONE
    Summary: added src/widget.ts and its test
    Concerns: none

## Findings
A JSON array of findings (or {"findings": [...]}, or one object per line);
an empty or missing file means none. severity is critical, important,
suggestion or cannot-verify; critical and important findings get one
fixer per task (at most two attempts, then the run halts, exit 9).

    [{"task": 1, "severity": "important", "file": "src/widget.ts",
      "line": 12, "message": "the constructor ignores its size"}]

## Step mode
An agent that starts its own subagents runs the same workflow in steps,
on the same ledger: start PLAN; per wave fan-out --wave N --json (prints
each task's workspace, path, brief, report and environment, starts
nothing), the subagents' work, collect --wave N, review record --task N
(--passed | --findings FILE), fan-in --wave N; at last gate. resume takes
over a run started in step mode. "jj-kaisen skill" prints the full guide.

# FILES
+ specstack.toml, ~/.config/specstack/config.toml
the configuration (see CONFIGURATION)

+ .jj/specstack/jj-kaisen/run.toml
the ledger of the current run (plan, parent change, start operation,
baseline, every event); in the orchestrating workspace's repository,
never in the working copy

+ .jj/specstack/jj-kaisen/runs/RUN.toml
earlier runs set aside by --fresh

+ .jj/specstack/jj-kaisen/artifacts/
task-N-brief.md, task-N-report.md, task-N.log, task-N-findings.json and
prior-waves.md; "jj kaisen artifacts" prints the directory

+ .jj/specstack/jj-kaisen/lock, lock-holder.toml
the ledger lock and who holds it (pid, command, start time)

+ $TMPDIR/jj-workspaces/REPO-HASH/kaisen-WS-RUN-task-N
the task workspaces (the folder is $SPECSTACK_WORKSPACES or [kaisen]
workspaces-dir when set; TMPDIR defaults to /tmp), outside every working
copy, the REPO-HASH folder removed when a run leaves it empty; "jj kaisen status" names them and "jj kaisen sweep --all" releases
those kept after a failure

# EXAMPLES
Make the alias once, then see the waves of a plan:

    jj config set --user aliases.kaisen '["util","exec","--","jj-kaisen"]'
    jj kaisen plan plan.md

Run it with an agent as worker, a reviewer and the full suite as gate:

    jj kaisen run plan.md --worker 'my-agent "$SPECSTACK_BRIEF"' \
        --reviewer 'my-agent --review' --test 'make test' --yes

Continue a run that was killed, or undo it:

    jj kaisen resume
    jj kaisen abort --yes

Step mode, wave 1:

    jj kaisen start plan.md --yes
    jj kaisen fan-out --wave 1 --json
    jj kaisen collect --wave 1 --json
    jj kaisen review record --task 1 --passed
    jj kaisen fan-in --wave 1 --json
    jj kaisen gate --json

Resolve what a fan-in left conflicted:

    jj kaisen conflicts
    jj kaisen resolve --strategy theirs notes.txt
`
