package cliapp

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// CompletionFlag is the hidden last argument with which the completion
// scripts ask a binary for candidates: BINARY WORDS... CUR CompletionFlag,
// WORDS being the words before the cursor and CUR the word being
// completed (possibly empty).
const CompletionFlag = "--generate-bash-completion"

// Lines of the answer that start with ':' are directives to the script:
// complete file names ending in a suffix (and directories), or
// directories. Every other line is a candidate.
const (
	directiveSuffix = ":suffix="
	directiveDirs   = ":dirs"
)

// CompleteSuffix returns a BashComplete for a command whose first argument
// is a file ending in suffix ("plan.md"): the scripts complete such files.
func CompleteSuffix(suffix string) cli.BashCompleteFunc {
	return func(c *cli.Context) {
		if c.NArg() == 0 {
			fmt.Fprintln(c.App.Writer, directiveSuffix+suffix)
		}
	}
}

// complete answers a completion request (args ends with CompletionFlag)
// without running any command: urfave/cli's own completion runs the
// action when the line holds "--" ("run -- <TAB>"), and gives up on flags
// after it. It walks the words to the innermost command, then prints its
// flags when CUR starts with "-" (so "run --<TAB>" lists run's flags), a
// directive for a flag's value, or the subcommands and the command's own
// candidates (its BashComplete, asked with the positional arguments typed
// so far and --repo).
func complete(app *cli.App, args []string, w io.Writer) {
	words := args[1 : len(args)-1]
	cur := ""
	if len(words) > 0 {
		cur, words = words[len(words)-1], words[:len(words)-1]
	}
	var (
		cmd     *cli.Command
		subs    = app.Commands
		flags   = app.Flags
		pos     []string
		dashes  bool
		repo    string
		pending cli.Flag // the flag whose value the next word is
	)
	for _, word := range words {
		if pending != nil {
			if isRepoFlag(pending) {
				repo = word
			}
			pending = nil
			continue
		}
		switch {
		case dashes || word == "-" || !strings.HasPrefix(word, "-"):
			if !dashes && len(pos) == 0 {
				if sub := findCommand(subs, word); sub != nil {
					cmd, subs, flags = sub, sub.Subcommands, sub.Flags
					continue
				}
			}
			pos = append(pos, word)
		case word == "--":
			dashes = true
		default:
			name, value, hasValue := strings.Cut(strings.TrimLeft(word, "-"), "=")
			f := findFlag(flags, name)
			if f == nil {
				f = findFlag(app.Flags, name)
			}
			if f == nil {
				continue
			}
			switch {
			case hasValue && isRepoFlag(f):
				repo = value
			case !hasValue && takesValue(f):
				pending = f
			}
		}
	}
	emit := func(s string) {
		if strings.HasPrefix(s, cur) {
			fmt.Fprintln(w, s)
		}
	}
	switch {
	case pending != nil:
		if isRepoFlag(pending) {
			fmt.Fprintln(w, directiveDirs)
		}
		return
	case !dashes && strings.HasPrefix(cur, "-"):
		for _, f := range flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				if len(n) == 1 {
					emit("-" + n)
				} else {
					emit("--" + n)
				}
			}
		}
		emit("--help")
		return
	}
	if len(pos) == 0 {
		for _, s := range subs {
			if !s.Hidden && s.Name != "help" {
				emit(s.Name)
			}
		}
	}
	if cmd == nil || cmd.BashComplete == nil {
		return
	}
	set := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.String("repo", "", "")
	parse := []string{"--"}
	if repo != "" {
		parse = []string{"-repo=" + repo, "--"}
	}
	if set.Parse(append(parse, pos...)) != nil {
		return
	}
	var out strings.Builder
	c := cli.NewContext(&cli.App{Name: app.Name, Writer: &out}, set, nil)
	c.Command = cmd
	cmd.BashComplete(c)
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if strings.HasPrefix(line, ":") {
			fmt.Fprintln(w, line)
		} else if line != "" {
			emit(line)
		}
	}
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func isRepoFlag(f cli.Flag) bool { return f.Names()[0] == "repo" }

// takesValue reports whether f reads the next word as its value.
func takesValue(f cli.Flag) bool {
	if df, ok := f.(cli.DocGenerationFlag); ok {
		return df.TakesValue()
	}
	return false
}
