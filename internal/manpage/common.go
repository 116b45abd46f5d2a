package manpage

import (
	"fmt"
	"strings"

	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
)

// environment is each binary's ENVIRONMENT section.
var environment = map[string]string{
	"jj-kaisen": `# ENVIRONMENT
+ PATH
where jj (0.30 or later) and git are found

+ SPECSTACK_WORKSPACES
the folder task workspaces are made under (an absolute path; wins over
[kaisen] workspaces-dir; default $TMPDIR/jj-workspaces)

+ TMPDIR
the default workspaces folder is $TMPDIR/jj-workspaces (default /tmp)

+ XDG_CONFIG_HOME
the user's configuration is $XDG_CONFIG_HOME/specstack/config.toml
(default ~/.config)

+ SPECSTACK_*
set for every worker, never read from the caller: see WORKER PROTOCOL`,
	"jj-openspec": `# ENVIRONMENT
+ PATH
where jj and git are found, and openspec for the cli verb

+ XDG_CONFIG_HOME
the user's configuration is $XDG_CONFIG_HOME/specstack/config.toml
(default ~/.config)

+ XDG_STATE_HOME
outside any repository the lock and archive journal live under
$XDG_STATE_HOME/specstack/jj-openspec/ (default ~/.local/state)`,
	"gh-specstack": `# ENVIRONMENT
+ GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN
the token, as for every gh extension (else gh auth login's)

+ GH_HOST
the GitHub host (default github.com)

+ GH_REPO
the repository OWNER/NAME (default: from the origin remote)

+ GH_SPECSTACK_API_URL
the REST API base URL (a GitHub Enterprise proxy, or a test server;
plain http allowed); then no request goes anywhere else

+ GH_SPECSTACK_TIMEOUT
each request's deadline, a Go duration such as 30s (wins over [github]
timeout; default 30s)

+ PATH
where git, jj (in a jj repository) and gh (for install-extension) are found

+ XDG_CONFIG_HOME, XDG_DATA_HOME
the user's configuration ($XDG_CONFIG_HOME/specstack/config.toml) and the
extension directory ($XDG_DATA_HOME/specstack/gh-extension)`,
}

// configuration renders CONFIGURATION from config.Keys.
func configuration() string {
	var b strings.Builder
	b.WriteString(`# CONFIGURATION
specstack.toml at the repository root and the user's
$XDG_CONFIG_HOME/specstack/config.toml (default ~/.config) configure all
three binaries; the repository's file wins key by key, and flags win over
both. An unknown key, a malformed file or a bad duration is a usage error
(exit 2) naming the file and the key; doctor lists the files it read. Every
key, with the binary that reads it:
`)
	section := ""
	for _, k := range config.Keys {
		if k.Section != section {
			section = k.Section
		}
		fmt.Fprintf(&b, "\n+ [%s] %s = %s\n%s (%s)\n", k.Section, k.Name, k.Example, k.Meaning, k.Binary)
	}
	return b.String()
}

// exitStatus renders EXIT STATUS as a table (tbl) from exitcode.Table.
// nokeep: kept rows get a blank line before them at some positions.
func exitStatus(notes string) string {
	var b strings.Builder
	b.WriteString(".SH EXIT STATUS\n.TS\nnokeep;\nl l lx.\n\\fBcode\\fR\t\\fBname\\fR\t\\fBmeaning\\fR\n")
	for _, e := range exitcode.Table {
		fmt.Fprintf(&b, "%d\t%s\tT{\n%s\nT}\n", e.Code, escape(e.Name), escapeLine(e.Meaning))
	}
	b.WriteString(".TE\n")
	b.WriteString(render(notes))
	return b.String()
}

// exitNotes is each binary's paragraph after the table.
var exitNotes = map[string]string{
	"jj-kaisen": `A run (run, resume, gate) exits 0 when every task was merged or its change
was empty, 9 when it completed with a task not merged (each named with why;
its workspace is kept), 8 when the final gate is red. While a run is live,
the verbs that change the ledger (run, start, resume, abort, sweep and the
step verbs) exit 3 naming the pid that holds the lock; status, log and
artifacts take no lock and answer. An unfinished run nobody drives makes
run and start exit 5 (resume,
abort or --fresh). A worker command whose program (or the script after sh)
does not exist is 7, before anything is provisioned; a plan with a heading
that looks like a task but is not one, or a task naming no files, needs --yes
(else 5). conflicts exits 4 when there are some. SIGINT or SIGTERM
cancels the command: exit 10, and resume continues from the ledger. Through
the jj alias (jj kaisen run ..., which is jj util exec -- jj-kaisen run ...)
from a terminal, jj-kaisen moves to a process group of its own and takes the
terminal's foreground (giving it back at exit; Ctrl-Z is ignored meanwhile),
so Ctrl-C reaches jj-kaisen and not jj, which would end util exec at once
with status 1 (jj 0.46): the exit is 10, with the "resume continues" line.
A SIGINT sent to jj's process group without a terminal still reaches jj: 1,
and jj-kaisen's line comes after jj has exited.`,
	"jj-openspec": `Two families. OpenSpec's verbs (list, show, validate, status,
instructions, archive, init, and those passed to the OpenSpec CLI) answer
as OpenSpec 1.13.2 does, so a script written for openspec runs unchanged:
0 or 1, with OpenSpec's text on OpenSpec's stream and, with --json, its
error document. A change that does not exist, failed validation, a delta
that cannot be applied, an unattended archive with unchecked tasks and no
--yes, an existing archive folder and no OpenSpec root are all 1 there.
They add only what OpenSpec has no code for: a symbolic link out of the
repository or an input that is not a regular file is 6, another
jj-openspec holding the archive lock is 3, no openspec on PATH for a verb
passed to it is 7, and cli returns openspec's own code. jj-openspec's
own verbs (apply, pipeline, relay, propose, new, ff, explore, check,
rebase, sync, tasks, conflicts, doctor, skill) use the table above: a
change that does not exist is 2 (the message names those there are),
failed validation 6, a decision needed 5, the lock held 3, no jj
workspace or a worker command whose program (or the script after sh) does
not exist 7. SIGINT or SIGTERM: exit 10 (an interrupted archive is
finished by the next command). Through the jj alias (jj openspec ...)
from a terminal jj-openspec takes the terminal's foreground, so Ctrl-C
gives 10 there too, not jj's 1.`,
	"gh-specstack": `A checkout off the default branch without --base, or stacks not enabled
without --stack-mode, is 5; a cycle among tickets, a ticket without a
recipe or GitHub data that makes no sense is 6, every such ticket named;
another link, run, resume or abort holding the lock is 3; abort with no
unfinished run is 2; a GitHub request that
fails or is not answered in time is 1; no gh for install-extension, or a
worker command whose program (or the script after sh) does not exist, is 7.
run without a terminal and without --yes, or while an unfinished run
exists, is 5; a per-change command that cannot start at the base SHA is 7
(an environment blocker, before any ticket); a ticket whose worker fails,
whose commands stay red, or that needs a decision (an origin ticket/N the
run did not push, a rebase that conflicts) halts the run with 9: see
status, then resume.`,
}

// shellCompletion is every page's SHELL COMPLETION section.
func shellCompletion(name string) string {
	host, sub, _ := strings.Cut(name, "-")
	return strings.NewReplacer("BIN", name, "HOST", host, "SUB", sub).Replace(`# SHELL COMPLETION
BIN completion bash|zsh|fish prints a script completing both BIN and
the alias form HOST SUB: verbs, flags (also "run --" then TAB), plan
files (*.md) for jj-kaisen's plan, brief, run and start, change names for
jj-openspec's status, validate, archive and tasks. The alias form wraps
HOST's own completion, which keeps answering everything else, so load the
script after HOST's. make install puts the scripts where bash-completion,
zsh and fish find them, but those load a script only when BIN itself is
completed: for HOST SUB load it from your shell's start-up file.

+ bash (~/.bashrc, after HOST's completion)

    source <(BIN completion bash)

+ zsh (~/.zshrc, after compinit and HOST's completion)

    source <(BIN completion zsh)

+ fish (~/.config/fish/config.fish)

    BIN completion fish | source

bash is checked by the test suite; zsh and fish are not.`)
}

// agents is every page's AGENTS section.
func agents(name string) string {
	return strings.ReplaceAll(`# AGENTS
BIN skill prints the guide an AI agent follows to use BIN (Markdown with
name and description front matter): when to use which verb, the step
sequence with the JSON each step prints, and what to do on each exit code.
BIN skill --install DIR writes it to DIR/BIN/SKILL.md, atomically; a
symbolic link leading out of DIR is refused (exit 6). With --json, skill
prints {"name", "description", "guide"}: the front matter's two fields
and the guide as printed, front matter included (a program gets them
without reading YAML); skill --install prints {"installed": PATH}.

    BIN skill --install ~/.claude/skills`, "BIN", name)
}

// seeAlso ends every page.
func seeAlso(name string) string {
	var others []string
	for _, s := range Specs() {
		if s.Name != name {
			others = append(others, s.Name+"(1)")
		}
	}
	return "# SEE ALSO\n" + strings.Join(others, ", ") + ", jj(1), git(1)\n"
}
