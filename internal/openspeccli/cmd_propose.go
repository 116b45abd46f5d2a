package openspeccli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/workflow/author"
)

// authorCommands are the authoring shape's verbs: propose and new create
// a change, ff completes one.
func authorCommands() []*cli.Command {
	usage := map[string]string{
		"propose": "a worker drafts a new change's artifacts in a workspace on trunk(), surfaced on change/<slug>",
		"new":     "like propose: a worker creates a new change's artifacts, surfaced on change/<slug> (`new change NAME` is OpenSpec's)",
		"ff":      "a worker completes a change's missing artifacts in a workspace on trunk(), surfaced on change/<slug>",
	}
	var cmds []*cli.Command
	for _, verb := range []string{"propose", "new", "ff"} {
		cmds = append(cmds, &cli.Command{
			Name:      verb,
			Usage:     usage[verb],
			ArgsUsage: "CHANGE",
			Description: `The authoring shape. A jj workspace is provisioned on trunk() (when trunk()
is root(), a repository without a remote trunk bookmark: on the revision
your work is on, @ when it holds changes, else its parent) and the worker
(--worker, or [worker] command) runs there with its brief in
$SPECSTACK_BRIEF and the change's name in $SPECSTACK_CHANGE; it writes
openspec/changes/CHANGE/ (proposal.md, specs/, design.md, tasks.md) and
nothing else. The result is validated natively and the change/<slug>
bookmark set on it; with --publish it is pushed once and a draft pull
request opened with the proposal as its body. Never verified, archived or
merged: "jj openspec apply CHANGE" implements it once it is agreed.

Health check: propose and new refuse a change that already exists (exit 5);
ff gates an existing change on validation (a BLOCKER, exit 6, nothing
provisioned) and skips the check for a new one. A change/<slug> bookmark
that exists is exit 5. The project lock is held (exit 3 while another
jj-openspec holds it).

The run is in the ledger (.jj/specstack/jj-openspec/author/CHANGE.toml):
a killed run, or one whose worker ended without a result, is resumed by
running the same verb on the change again (--worker and --timeout, when
given, replace the recorded ones); finished steps are not redone. --status
lists the authoring runs and where each stands.

Exit codes: 0 valid; 2 usage; 5 a decision; 6 the written change is invalid
(its bookmark set for you to fix); 9 the worker ended without a result (its
workspace kept; run again to retry).`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "worker", Usage: "authoring `CMD`, run by sh -c in the workspace (default: [worker] command)"},
				&cli.StringFlag{Name: "timeout", Usage: "worker `DURATION` (default: [worker] timeout)"},
				&cli.BoolFlag{Name: "publish", Usage: "push change/<slug> once and open a draft pull request"},
				&cli.BoolFlag{Name: "status", Usage: "show the authoring runs in the ledger (a CHANGE: only its run)"},
			},
			Action: runAuthor,
		})
	}
	newCmd := cmds[1]
	newCmd.Description += `

"new change NAME [FLAGS]" is OpenSpec's new change, the form its skills run:
the real OpenSpec CLI scaffolds openspec/changes/NAME/ (.openspec.yaml,
README.md with --description), its output and exit code passed on.`
	openSpecNewChange(newCmd)
	// relay's first leg is exactly propose: it is listed with the
	// authoring verbs.
	return append(cmds, relayCommand())
}

// openSpecNewChange makes `new change NAME [FLAGS]`, the form OpenSpec's
// skills run before writing any artifact, OpenSpec's own `new change`:
// the whole invocation runs the real CLI (passThrough), which scaffolds
// the change folder and its .openspec.yaml. Any other `new CHANGE` is
// jj-openspec's authoring verb; `propose change` authors a change that is
// named "change".
func openSpecNewChange(cmd *cli.Command) {
	act := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if args := invocation(c)[1:]; len(args) > 0 && args[0] == "change" {
			return passThrough(c, invocation(c))
		}
		return act(c)
	}
	// A flag jj-openspec's new does not define, before the word change
	// (`new --store ID change NAME`): OpenSpec's too.
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		if strings.Contains(err.Error(), "flag provided but not defined") && slices.Contains(invocation(c)[1:], "change") {
			return passThrough(c, invocation(c))
		}
		return cliapp.UsageError(c, err)
	}
}

func runAuthor(c *cli.Context) error {
	if c.Bool("status") {
		return authorStatus(c)
	}
	name, err := oneChange(c)
	if err != nil {
		return err
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	res, err := author.Author(c.Context, s.authorEnv(), author.AuthorRequest{
		Verb: c.Command.Name, Change: name,
		Worker:        cmp.Or(c.String("worker"), s.cfg.Worker.Command),
		Timeout:       cmp.Or(c.String("timeout"), s.cfg.Worker.Timeout),
		Publish:       c.Bool("publish"),
		WorkspacesDir: config.WorkspacesDir(s.cfg, s.env.Repo.Root),
	})
	if res != nil {
		if eerr := cliapp.Emit(c, res, func(w io.Writer) error { return writeAuthor(w, res) }); eerr != nil && err == nil {
			err = eerr
		}
	}
	return err
}

// AuthorStatusView is `propose --status --json`.
type AuthorStatusView struct {
	LedgerDir string                `json:"ledger_dir"`
	Runs      []author.AuthorStatus `json:"runs"`
}

func authorStatus(c *cli.Context) error {
	args, err := cliapp.Args(c)
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return exitcode.New(exitcode.Usage, "%s --status: name at most one change", c.Command.Name)
	}
	s, err := openApply(c)
	if err != nil {
		return err
	}
	runs, err := author.AuthorRuns(s.env.Dir)
	if err != nil {
		return err
	}
	if len(args) == 1 {
		runs = slices.DeleteFunc(runs, func(r author.AuthorStatus) bool { return r.Change != args[0] })
	}
	v := AuthorStatusView{LedgerDir: s.env.Dir, Runs: runs}
	return cliapp.Emit(c, v, func(w io.Writer) error {
		if len(runs) == 0 {
			_, err := fmt.Fprintf(w, "no authoring run in the ledger (%s)\n", s.env.Dir)
			return err
		}
		var b strings.Builder
		for _, r := range runs {
			fmt.Fprintf(&b, "%s of %s: %s (run %s, bookmark %s", r.Verb, r.Change, r.Phase, r.RunID, r.Bookmark)
			if r.Commit != "" {
				fmt.Fprintf(&b, " on %s", shortOp(r.Commit))
			}
			b.WriteString(")\n")
			if r.Resumable {
				fmt.Fprintf(&b, "  `jj openspec %s %s` resumes it\n", r.Verb, r.Change)
			}
			fmt.Fprintf(&b, "  ledger: %s\n", r.Ledger)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

func writeAuthor(w io.Writer, res *author.AuthorResult) error {
	return writeAuthorResult(w, res, true)
}

// writeAuthorResult shows an authoring result; next adds the line naming
// what to do with it (relay says its own).
func writeAuthorResult(w io.Writer, res *author.AuthorResult, next bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "change: %s (%s)\n", res.Change, res.Verb)
	fmt.Fprintf(&b, "health check: %s\n", res.Health)
	fmt.Fprintf(&b, "worker: %s\n", res.Worker)
	if res.Commit != "" {
		if res.BaseOnWork {
			fmt.Fprintf(&b, "bookmark: %s on %s (based on %s, the revision your work is on: trunk() is root())\n", res.Bookmark, shortOp(res.Commit), shortOp(res.Base))
		} else {
			fmt.Fprintf(&b, "bookmark: %s on %s (based on trunk() %s)\n", res.Bookmark, shortOp(res.Commit), shortOp(res.Base))
		}
		for _, f := range res.Files {
			fmt.Fprintf(&b, "  %s\n", f)
		}
		verdict := "valid"
		if !res.Valid {
			verdict = "INVALID"
		}
		fmt.Fprintf(&b, "validate: %s\n", verdict)
		for _, i := range res.Issues {
			fmt.Fprintf(&b, "  [%s] %s: %s\n", i.Level, i.Path, i.Message)
		}
	}
	if res.Published != "" {
		fmt.Fprintf(&b, "published: %s\n", res.Published)
	}
	if res.PR != nil {
		fmt.Fprintf(&b, "draft pull request: #%d %s (%s)\n", res.PR.Number, res.PR.Action, res.PR.URL)
	}
	if next && res.Valid && res.Ready {
		// Never a step that would take the user's files out of the
		// working copy.
		if res.HoldsWork {
			fmt.Fprintf(&b, "next: review %s, then `jj new %s` and `jj openspec apply %s`\n", res.Bookmark, res.Bookmark, res.Change)
		} else {
			fmt.Fprintf(&b, "next: review %s, then `jj openspec apply %s` in a working copy holding it and your work (`jj new @ %s`; `jj new %s` alone would leave @ out)\n",
				res.Bookmark, res.Change, res.Bookmark, res.Bookmark)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// authorEnv is the part of the session propose, new and ff work in.
func (s *applySession) authorEnv() *author.Env {
	return &author.Env{Repo: s.env.Repo, Root: s.env.Root, Dir: s.env.Dir, Out: s.env.Out, Markers: s.env.Markers}
}
