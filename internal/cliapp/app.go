// Package cliapp builds the command-line application shared by the three
// specstack binaries, so that all of them have the same global flags
// (--json, --repo/-R), --help, --version, a frozen exit-code table,
// completion scripts and a doctor command. Man pages are rendered from the
// same definitions by internal/manpage at build time (`make man`), never by
// the binaries: see the Makefile's TAGS.
//
// # Prompts and terminals
//
// A command never reads os.Stdin or stats os.Stderr itself: the app carries
// its streams (Streams: stdin, stdout, stderr and the "is a terminal"
// check), so tests drive every prompt with RunStreams and an injected
// reader and terminal check. A command that needs a decision does:
//
//	if !c.Bool("yes") {
//		if !cliapp.CanPrompt(c) { // not a terminal, or --json
//			// print what the prompt would have shown, then:
//			return exitcode.New(exitcode.NeedsChoice, "…: re-run with --yes")
//		}
//		ok, err := cliapp.Confirm(c, "Proceed with this?") // "… [y/N] " on stderr
//		if err != nil {
//			return err
//		}
//		if !ok {
//			return exitcode.New(exitcode.NeedsChoice, "… declined: re-run with --yes")
//		}
//	}
//
// Stdin, StdinIsTerminal and StderrIsTerminal (live progress, colour)
// answer from the same streams.
package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/doctor"
	"github.com/specstack/specstack/internal/exitcode"
)

// Version is set at build time with
// -ldflags "-X github.com/specstack/specstack/internal/cliapp.Version=v1.2.3".
var Version = ""

// Spec describes one binary.
type Spec struct {
	Name        string // binary name, e.g. "jj-kaisen"
	Usage       string // one line
	Description string // paragraphs for --help and the man page
	Commands    []*cli.Command
	// Skill is the agent-facing guide that `skill` prints (Markdown with
	// front matter name and description); see skill.go.
	Skill string
	// Guide is the section 7 man page of the binary's workflow
	// (specstack-kaisen); each verb's --help names it.
	Guide string
	// Examples holds one example command line per verb, keyed by the
	// verb's path ("run", "review record"); each verb's --help ends with
	// it. Every verb has one (a test of each binary checks).
	Examples map[string]string
	// Doctor, when set, adds the binary's own checks to doctor's report
	// of dir (jj-openspec and gh-specstack: what publishing needs).
	Doctor func(ctx context.Context, dir string, rep *doctor.Report)
	// Flags are the binary's own global flags, after the shared ones;
	// Before, when set, runs once they are parsed, before any command
	// (return Done() to end there with exit 0).
	Flags  []cli.Flag
	Before cli.BeforeFunc
}

// Done ends the app with exit 0 and nothing more printed, from a Before
// hook or a command that has said all it had to.
func Done() error { return exitcode.Wrap(exitcode.OK, &SilentError{Code: exitcode.OK}) }

// New builds the app for s, with the shared flags and commands added.
func New(s Spec) *cli.App {
	app := &cli.App{
		Name:                 s.Name,
		Usage:                s.Usage,
		Description:          strings.TrimSpace(s.Description) + "\n\n" + exitCodeDoc(),
		Version:              versionString(),
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Suggest:              true,
		// A repeated flag's value is one element, commas included: a
		// --task text is never split in two.
		DisableSliceFlagSeparator: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
			&cli.StringFlag{Name: "repo", Aliases: []string{"R"}, Usage: "run in the repository at `DIR` instead of the current directory"},
		},
		ExitErrHandler: func(*cli.Context, error) {}, // Run decides the exit code
		OnUsageError:   onUsageError,
		Action:         unknownVerb,
	}
	app.Flags = append(app.Flags, s.Flags...)
	app.Before = s.Before
	app.Commands = append(app.Commands, s.Commands...)
	app.Commands = append(app.Commands,
		doctorCommand(s.Name, s.Doctor),
		completionCommand(app),
	)
	if s.Skill != "" {
		app.Commands = append(app.Commands, skillCommand(s))
	}
	stateDefaultsOnce(app.Flags)
	for _, c := range app.Commands {
		setUsageErrors(c)
		addCommonFlags(c)
		setUnknownVerbs(c)
		stateCommandDefaultsOnce(c)
		setHelp(s, c, "")
	}
	return app
}

// builtinExamples are the examples of the verbs every binary has.
var builtinExamples = map[string]string{
	"doctor":     "doctor --json",
	"completion": "completion bash > ~/.local/share/bash-completion/completions/BINARY",
	"skill":      "skill --install ~/.claude/skills",
}

// setHelp ends the --help of c (at path parent) and of its subcommands
// with c's example and the man pages to read.
func setHelp(s Spec, c *cli.Command, parent string) {
	p := strings.TrimSpace(parent + " " + c.Name)
	ex, ok := s.Examples[p]
	if !ok {
		ex, ok = builtinExamples[p]
		ex = strings.ReplaceAll(ex, "BINARY", s.Name)
	}
	pages := s.Name + "(1)"
	if s.Guide != "" {
		pages += " and " + s.Guide + "(7)"
	}
	tail := "\nSEE ALSO:\n   " + pages + "\n"
	if ok {
		tail = "\nEXAMPLE:\n   " + s.Name + " " + ex + "\n" + tail
	}
	// The text is part of the template: braces in it are printed, not run.
	tail = strings.ReplaceAll(tail, "{{", `{{"{{"}}`)
	base := cli.CommandHelpTemplate
	if len(c.Subcommands) > 0 {
		base = cli.SubcommandHelpTemplate
	}
	c.CustomHelpTemplate = base + tail
	for _, sub := range c.Subcommands {
		setHelp(s, sub, p)
	}
}

func onUsageError(c *cli.Context, err error, _ bool) error { return UsageError(c, err) }

func setUsageErrors(c *cli.Command) {
	if c.OnUsageError == nil {
		c.OnUsageError = onUsageError
	}
	for _, sub := range c.Subcommands {
		setUsageErrors(sub)
	}
}

// Main runs s with the process arguments and exits with the decided code.
func Main(s Spec) {
	os.Exit(Run(s, os.Args, os.Stdout, os.Stderr))
}

// Run runs the app for s with args and returns the exit code. Errors are
// printed to stderr as "<name>: <message>". Prompts read the process's
// stdin; RunStreams injects another.
func Run(s Spec, args []string, stdout, stderr io.Writer) int {
	return RunStreams(s, args, Streams{In: os.Stdin, Out: stdout, Err: stderr})
}

// RunStreams is Run with the app's streams and terminal check given.
// A command whose standard output's reader went away (`… | head` read
// what it wanted and closed the pipe) ends quietly with code 0.
func RunStreams(s Spec, args []string, st Streams) int {
	if st.Out == os.Stdout {
		st.Out = pipeStdout()
	}
	stdout, stderr := st.Out, st.Err
	app := New(s)
	app.Reader = st.In
	if app.Reader == nil {
		app.Reader = strings.NewReader("") // no stdin: end of input at once
	}
	app.Writer = stdout
	app.ErrWriter = stderr
	app.Metadata = map[string]any{argsKey: args[min(1, len(args)):]}
	if st.IsTerminal != nil {
		app.Metadata[isTerminalKey] = st.IsTerminal
	}
	if n := len(args); n >= 2 && args[n-1] == CompletionFlag {
		complete(app, args, stdout)
		return 0
	}
	if st.In == os.Stdin {
		defer takeForeground()()
	}
	ctx, stop := interruptible(s.Name, stderr)
	defer stop()
	err := app.RunContext(ctx, args)
	if err == nil || closedPipe(err, stdout) {
		return 0
	}
	code := exitCodeOf(err)
	if ctx.interrupted() && code == exitcode.Failure {
		code = exitcode.Interrupted
	}
	var silent *SilentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(stderr, "%s: %v\n", s.Name, err)
	}
	return int(code)
}

// SilentError exits with Code without printing anything more: the command
// has already reported (for example as JSON on stdout).
type SilentError struct{ Code exitcode.Code }

func (e *SilentError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Silent returns an error that exits with c and prints nothing.
func Silent(c exitcode.Code) error {
	if c == exitcode.OK {
		return nil
	}
	return exitcode.Wrap(c, &SilentError{Code: c})
}

func versionString() string {
	v := Version
	rev, dirty := "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		v += " (" + rev + ")"
	}
	return v
}

func exitCodeDoc() string {
	var b strings.Builder
	b.WriteString("EXIT CODES:\n")
	for _, e := range exitcode.Table {
		fmt.Fprintf(&b, "   %2d  %-15s %s\n", e.Code, e.Name, e.Meaning)
	}
	return strings.TrimRight(b.String(), "\n")
}
