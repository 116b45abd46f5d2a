package manpage

// openspecPage is the part of jj-openspec's page the command definitions
// do not hold.
const openspecPage = `# OPENSPEC LAYOUT
jj-openspec works on the openspec/ directory found here or above: active
changes in openspec/changes/NAME/ (proposal.md, tasks.md, design.md and
delta specs under specs/CAPABILITY/spec.md), the main specs in
openspec/specs/CAPABILITY/spec.md, archived changes in
openspec/changes/archive/YYYY-MM-DD-NAME/. A change's schema comes from its
.openspec.yaml, else openspec/config.yaml, else the built-in spec-driven.
Results match the OpenSpec CLI 1.13: task counts, validation levels and
messages, archived specs byte for byte.

tasks.md groups are "## " headings; a task is "- [ ] 1.2 text" (checked
"- [x]"). A group's file area is the paths and globs its lines name in
backticks; tasks shows the areas and the fan-out verdict (fan out only when
at least two groups are disjoint, independent, name a path and have
[openspec] min-group-tasks unchecked tasks).

    ## 1. Export API
    - [x] 1.1 Add ` + "`src/api/export.ts`" + ` endpoint
    - [ ] 1.2 Wire ` + "`src/api/router.ts`" + ` to the export endpoint

# FILES
+ openspec/changes/NAME/, openspec/specs/, openspec/changes/archive/
the project's changes, main specs and archive (see OPENSPEC LAYOUT)

+ specstack.toml, ~/.config/specstack/config.toml
the configuration (see CONFIGURATION)

+ .jj/specstack/jj-openspec/lock, lock-holder.toml
the lock archive and tasks tick|untick hold, and who holds it; in git
$(git rev-parse --git-common-dir)/specstack/jj-openspec/, outside any
repository $XDG_STATE_HOME/specstack/jj-openspec/HASH/
(~/.local/state when XDG_STATE_HOME is unset; HASH is the first 16 hex
digits of the SHA-256 of the project's real path)

+ .jj/specstack/jj-openspec/archive-journal/
the intent journal of an archive in progress; the next command finishes
an interrupted archive from it and says so on stderr

# EXAMPLES
Make the alias once, then look at the changes:

    jj config set --user aliases.openspec \
        '["util","exec","--","jj-openspec"]'
    jj openspec list
    jj openspec status add-export

Check a change, see its task groups, tick what is done, archive it:

    jj openspec validate add-export --strict
    jj openspec tasks add-export
    jj openspec tasks tick add-export 1.2 2.1
    jj openspec archive add-export --dry-run
    jj openspec archive add-export --yes

Run the real OpenSpec CLI in the project root:

    jj openspec cli -- list --specs
`

// stackPage is the part of gh-specstack's page the command definitions do
// not hold.
const stackPage = `# SPEC ISSUES AND TICKETS
A spec issue's sub-issues are its tickets. A ticket is blocked by the
tickets GitHub's issue dependencies name, else by the #N of a "Blocked by"
section of its body. Each ticket needs a "## Validation" section holding
"### Run per change" (and may hold "### Run at review"); a line's first
backticked span is its command:

    ## Validation
    ### Run per change
    - ` + "`go test ./...`" + `
    ### Run at review
    - ` + "`make e2e`" + `

Tickets labelled ready-for-human ([stack] human-label) are excluded with
everything that depends on them.

# FILES
+ specstack.toml, ~/.config/specstack/config.toml
the configuration (see CONFIGURATION)

+ .jj/specstack/gh-specstack/lock, lock-holder.toml
the lock link, run and resume hold and who holds it; in git
$(git rev-parse --git-common-dir)/specstack/gh-specstack/

+ $(git rev-parse --git-common-dir)/specstack/gh-specstack/run.toml
the run's ledger: what run settled, then every step (baseline, cut,
receipts, gate rounds, push, pull request, stack entry), written
atomically; status reads it, resume continues from it

+ .../gh-specstack/run/N/
ticket N's brief, worker and validation logs, gate rounds (review brief,
diff, findings, rejected findings, verdicts); run/notes/ is the notes
directory every brief names

+ $SPECSTACK_WORKSPACES/REPO-HASH/ticket/N
ticket N's git worktree on branch ticket/N while it is built (default
$TMPDIR/jj-workspaces/...; [kaisen] workspaces-dir)

+ $XDG_DATA_HOME/specstack/gh-extension/gh-specstack/
the extension directory install-extension registers with gh
(~/.local/share when XDG_DATA_HOME is unset)

# EXAMPLES
Register the extension once (gh must be logged in):

    gh-specstack install-extension

Plan spec issue 1's tickets in layers, and print their recipes:

    gh specstack plan 1
    gh specstack recipes 1 --json

Build spec issue 1's tickets with a worker, gated by a reviewer, published
one at a time as a stack; see where it is; continue after a halt:

    gh specstack run 1 --worker ./work.sh --reviewer ./review.sh --yes
    gh specstack status
    gh specstack resume

Make bookmarks a, b and c (bottom first) a stack of draft pull requests:

    gh specstack link a b c
`
