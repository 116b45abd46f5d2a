package cliapp

import (
	"context"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/exitcode"
)

func doctorCommand(binary string, own func(context.Context, string, *doctor.Report)) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "report the repository kind, jj and git versions, jj user, ledger and workspaces directories and config files",
		Description: "Checks what " + binary + " needs: the jj and git found on PATH against the minimum versions,\n" +
			"the kind of repository (jj, jj-colocated, git), where ledgers are kept and which config files were read.\n" +
			"It warns when jj's user.name or user.email is not set, naming the `jj config set --user` commands,\n" +
			"and names the folder task workspaces are created in and what set it (SPECSTACK_WORKSPACES, else\n" +
			"[kaisen] workspaces-dir and the file holding it, else the default, $TMPDIR/jj-workspaces).\n" +
			"jj-kaisen in a git repository without jj is a problem (its verbs need jj workspaces). jj-openspec and\n" +
			"gh-specstack report what publishing needs (gh-specstack, a GitHub repository, a token) on a github line,\n" +
			"each thing missing a warning (jj-openspec apply --no-push works without them), and all three whether\n" +
			"the remote workers' workflow (.github/workflows/specstack-worker.yml) is on the default branch and the\n" +
			"token may dispatch it (an \"actions worker\" line; jj-kaisen warns only when [executor] kind is github-actions).\n" +
			"Exits 0 when all is well (warnings included), 7 (missing-tool) otherwise.",
		Action: func(c *cli.Context) error {
			dir, err := RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			rep := doctor.Gather(c.Context, binary, c.App.Version, dir)
			if own != nil {
				own(c.Context, dir, rep)
			}
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
			args, err := Args(c)
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return exitcode.New(exitcode.Usage, "completion: name one shell: bash, zsh or fish")
			}
			script, err := CompletionScript(app, args[0])
			if err != nil {
				return err
			}
			return Emit(c, map[string]string{"shell": args[0], "script": script}, func(w io.Writer) error {
				_, err := io.WriteString(w, script)
				return err
			})
		},
	}
}

// CompletionScript returns the completion script of app for shell. Each
// script completes the binary (jj-kaisen …) and its alias form (jj kaisen
// …, gh specstack …), by wrapping the host's completion function: load it
// after jj's (or gh's) own. See the README ("Completion").
func CompletionScript(app *cli.App, shell string) (string, error) {
	host, sub, _ := strings.Cut(app.Name, "-")
	r := strings.NewReplacer("BIN", app.Name, "FN", "_"+strings.ReplaceAll(app.Name, "-", "_"), "HOST", host, "SUB", sub)
	switch shell {
	case "bash":
		return r.Replace(bashCompletion), nil
	case "zsh":
		return r.Replace(zshCompletion), nil
	case "fish":
		return r.Replace(fishCompletion), nil
	}
	return "", exitcode.New(exitcode.Usage, "completion: unknown shell %q: choose bash, zsh or fish", shell)
}

// The scripts ask the binary itself for candidates (BIN WORDS... CUR
// --generate-bash-completion, see CompletionFlag), passing the words typed
// so far as separate arguments, never through eval. A line ":suffix=.md"
// asks for file names with that suffix, ":dirs" for directories.
const bashCompletion = `# bash completion for BIN and ` + "`HOST SUB`" + `; load it after HOST's own:
#   source <(BIN completion bash)
FN_complete() { # $1: the command to ask; $2: the index of its first argument
  local cur=${COMP_WORDS[COMP_CWORD]} line IFS=$'\n'
  local -a words=("${COMP_WORDS[@]:$2:COMP_CWORD-$2}") out
  out=($("$1" "${words[@]}" "$cur" --generate-bash-completion 2>/dev/null))
  COMPREPLY=()
  for line in "${out[@]}"; do
    case $line in
      :suffix=*)
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -f -X "!*${line#:suffix=}" -- "$cur") $(compgen -d -- "$cur")) ;;
      :dirs)
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -d -- "$cur")) ;;
      *) COMPREPLY+=("$line") ;;
    esac
  done
}
FN() { FN_complete "${COMP_WORDS[0]}" 1; }
complete -o bashdefault -o default -F FN BIN
# HOST SUB …: wrap HOST's completion function (loaded lazily by
# bash-completion, so load it first); everything else goes to it.
if [[ -z ${FN_HOST_prev+set} ]]; then
  if ! complete -p HOST >/dev/null 2>&1 && declare -F _completion_loader >/dev/null; then
    _completion_loader HOST >/dev/null 2>&1
  fi
  FN_HOST_spec=$(complete -p HOST 2>/dev/null)
  FN_HOST_prev=
  if [[ $FN_HOST_spec =~ -F\ ([^ ]+)\  ]]; then FN_HOST_prev=${BASH_REMATCH[1]}; fi
  FN_HOST() {
    if [[ ${COMP_WORDS[1]} == SUB ]] && ((COMP_CWORD >= 2)); then
      compopt +o nospace 2>/dev/null
      FN_complete BIN 2
    elif [[ -n $FN_HOST_prev ]]; then
      "$FN_HOST_prev" "$@"
    fi
  }
  if [[ -n $FN_HOST_prev ]]; then
    eval "${FN_HOST_spec/-F $FN_HOST_prev /-F FN_HOST }"
  else
    complete -o bashdefault -o default -F FN_HOST HOST
  fi
fi
`

const zshCompletion = `#compdef BIN
# zsh completion for BIN and ` + "`HOST SUB`" + `; load it after compinit and HOST's own:
#   source <(BIN completion zsh)
FN_complete() { # $1: the command to ask; $2: the index of its first argument
  local cur=${words[CURRENT]} line
  local -a out cands
  out=("${(@f)$("$1" "${(@)words[$2,CURRENT-1]}" "$cur" --generate-bash-completion 2>/dev/null)}")
  for line in "${out[@]}"; do
    case $line in
      (:suffix=*) _files -g "*${line#:suffix=}"; return ;;
      (:dirs) _files -/; return ;;
      (?*) cands+=("$line") ;;
    esac
  done
  if (( ${#cands} )); then compadd -a cands; else _files; fi
}
FN() { FN_complete "${words[1]}" 2; }
compdef FN BIN
# HOST SUB …: wrap HOST's completion function; everything else goes to it.
if [[ -z ${FN_HOST_prev+set} ]]; then
  typeset -g FN_HOST_prev=${_comps[HOST]}
  FN_HOST() {
    if [[ ${words[2]} == SUB ]] && (( CURRENT > 2 )); then
      FN_complete BIN 3
    elif [[ -n $FN_HOST_prev ]]; then
      $FN_HOST_prev "$@"
    fi
  }
  compdef FN_HOST HOST
fi
# autoloaded from fpath as _BIN: complete the line that loaded it
if [[ ${funcstack[1]} == _BIN ]]; then FN "$@"; fi
`

const fishCompletion = `# fish completion for BIN and ` + "`HOST SUB`" + `:
#   BIN completion fish > ~/.config/fish/completions/BIN.fish
# (and, for HOST SUB, source it from ~/.config/fish/config.fish)
function _FN_complete --argument-names cmd skip
    set -l words (commandline -opc)
    set -e words[1..$skip]
    set -l cur (commandline -ct)
    set -l any
    for line in ($cmd $words $cur --generate-bash-completion 2>/dev/null)
        switch $line
            case ':suffix=*'
                __fish_complete_suffix (string replace ':suffix=' '' -- $line)
                set any 1
            case ':dirs'
                __fish_complete_directories $cur
                set any 1
            case '*'
                echo $line
                set any 1
        end
    end
    if test -z "$any"
        __fish_complete_path $cur
    end
end
function _FN_HOST_SUB
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test "$words[2]" = SUB
end
complete -c BIN -f -a '(_FN_complete BIN 1)'
complete -c HOST -n _FN_HOST_SUB -f -a '(_FN_complete BIN 2)'
`
