package cliapp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/exitcode"
)

// unknownVerb is the action of the app and of every command made of
// subcommands only: without arguments it prints the help, as urfave/cli
// does; with a word that names none of the commands it is a usage error
// (exit 2) saying so, naming the nearest command when one is close to
// the word (closest) and where the commands are listed. urfave/cli's own
// "No help topic for 'x'. Did you mean …?" suggests the least unlike
// command however unlike it is.
func unknownVerb(c *cli.Context) error {
	if !c.Args().Present() {
		if commandPath(c) == "" {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	if c.Args().First() == "help" {
		return helpTopic(c, c.Args().Tail())
	}
	return unknownCommand(c, commandPath(c), c.Command.Subcommands, c.Args().First())
}

// unknownCommand is the usage error of word, given where cmds are the
// commands of the command at path ("" for the binary's own).
func unknownCommand(c *cli.Context, path string, cmds []*cli.Command, word string) error {
	var names []string
	for _, sub := range cmds {
		if !sub.Hidden && sub.Name != "help" {
			names = append(names, sub.Names()...)
		}
	}
	msg := fmt.Sprintf("unknown command %q", word)
	if s := closest(word, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	msg += " (" + strings.TrimSpace(c.App.Name+" "+path) + " --help lists the commands)"
	if path != "" {
		msg = path + ": " + msg
	}
	return exitcode.New(exitcode.Usage, "%s", msg)
}

// helpTopic is "help [COMMAND...]" in c's place, as git, jj and gh
// have it: the --help of the command the words name, under c's command,
// or c's own with none; a word naming no command is unknownCommand's
// usage error. The help is the app run again with --help, so that it is
// --help's to the byte (urfave/cli sets a command up to print it only
// when it runs).
func helpTopic(c *cli.Context, words []string) error {
	cmds, path := c.Command.Subcommands, commandPath(c)
	for _, w := range words {
		var next *cli.Command
		for _, sub := range cmds {
			if !sub.Hidden && sub.HasName(w) {
				next = sub
			}
		}
		if next == nil {
			return unknownCommand(c, path, cmds, w)
		}
		cmds, path = next.Subcommands, strings.TrimSpace(path+" "+next.Name)
	}
	return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, strings.Fields(path)...), "--help"))
}

// setUnknownVerbs gives c, and each of its subcommands, that is made of
// subcommands and has no action of its own unknownVerb as its action.
// It runs after addCommonFlags, which gives a command with an action
// the --json and --repo flags: a group of subcommands takes none.
func setUnknownVerbs(c *cli.Command) {
	if len(c.Subcommands) > 0 && c.Action == nil {
		c.Action = unknownVerb
		c.HideHelpCommand = true // "help" is unknownVerb's
	}
	for _, sub := range c.Subcommands {
		setUnknownVerbs(sub)
	}
}

// commandPath is the path of c's command after the binary's name ("run",
// "review record"), "" for the binary itself: the names of the commands
// along c's lineage but the last, the app's own. (Not from HelpName,
// which urfave/cli prefixes again each time an app runs the command.)
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx != nil && ctx.Command != nil {
			names = append(names, ctx.Command.Name)
		}
	}
	if len(names) > 0 {
		names = names[:len(names)-1]
	}
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// helpCommand is the command line whose --help describes c's command.
func helpCommand(c *cli.Context) string {
	return strings.TrimSpace(c.App.Name + " " + commandPath(c))
}
