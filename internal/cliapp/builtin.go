package cliapp

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/exitcode"
)

func doctorCommand(binary string) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "report the repository kind, jj and git versions, jj user, ledger and workspaces directories and config files",
		Description: "Checks what " + binary + " needs: the jj and git found on PATH against the minimum versions,\n" +
			"the kind of repository (jj, jj-colocated, git), where ledgers are kept and which config files were read.\n" +
			"It warns when jj's user.name or user.email is not set, naming the `jj config set --user` commands,\n" +
			"and names the folder task workspaces are created in (SPECSTACK_WORKSPACES or [kaisen] workspaces-dir).\n" +
			"Exits 0 when all is well (warnings included), 7 (missing-tool) otherwise.",
		Action: func(c *cli.Context) error {
			dir, err := RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			rep := doctor.Gather(c.Context, binary, c.App.Version, dir)
			if err := Emit(c, rep, func(w io.Writer) error {
				_, err := io.WriteString(w, rep.Text())
				return err
			}); err != nil {
				return err
			}
			if !rep.OK() {
				return Silent(exitcode.Missing)
			}
			return nil
		},
	}
}

func completionCommand(app *cli.App) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load it in your shell, for example:\n" +
			"   source <(" + app.Name + " completion bash)\n" +
			"   " + app.Name + " completion fish > ~/.config/fish/completions/" + app.Name + ".fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitcode.New(exitcode.Usage, "completion: name one shell: bash, zsh or fish")
			}
			script, err := CompletionScript(app, c.Args().First())
			if err != nil {
				return err
			}
			_, err = io.WriteString(c.App.Writer, script)
			return err
		},
	}
}

// CompletionScript returns the completion script of app for shell.
func CompletionScript(app *cli.App, shell string) (string, error) {
	fn := "_" + strings.ReplaceAll(app.Name, "-", "_")
	switch shell {
	case "bash":
		return fmt.Sprintf(bashCompletion, fn, app.Name), nil
	case "zsh":
		return fmt.Sprintf(zshCompletion, app.Name, fn), nil
	case "fish":
		return fmt.Sprintf(fishCompletion, app.Name), nil
	}
	return "", exitcode.New(exitcode.Usage, "completion: unknown shell %q: choose bash, zsh or fish", shell)
}

// The scripts ask the binary itself for candidates (urfave/cli's hidden
// --generate-bash-completion flag), passing the words typed so far as
// separate arguments, never through eval.
const bashCompletion = `# bash completion for %[2]s
%[1]s() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ $cur == -* ]]; then words+=("$cur"); fi
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null | cut -d: -f1)" -- "$cur"))
}
complete -o bashdefault -o default -F %[1]s %[2]s
`

const zshCompletion = `#compdef %[1]s
%[2]s() {
  local -a opts
  local cur=${words[CURRENT]}
  local -a args=("${(@)words[2,CURRENT-1]}")
  if [[ $cur == -* ]]; then args+=("$cur"); fi
  opts=("${(@f)$(${words[1]} "${(@)args}" --generate-bash-completion 2>/dev/null)}")
  if [[ -n "${opts[1]}" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef %[2]s %[1]s
`

const fishCompletion = `# fish completion for %[1]s
function __%[1]s_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        set -a words $cur
    end
    %[1]s $words --generate-bash-completion 2>/dev/null | string replace -r ':.*' ''
end
complete -c %[1]s -f -a '(__%[1]s_complete)'
`
