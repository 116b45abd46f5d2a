package stackcli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/config"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/ledger"
	"github.com/specstack/specstack/internal/repo"
	"github.com/specstack/specstack/stack"
	"github.com/specstack/specstack/stack/ghapi"
)

func commands() []*cli.Command {
	return []*cli.Command{planCommand(), recipesCommand(), linkCommand(), installCommand()}
}

var (
	humanLabelFlag = &cli.StringFlag{Name: "human-label", Usage: "label of tickets that need a person (default: config stack.human-label, else \"" + stack.DefaultHumanLabel + "\")"}
	stackModeFlag  = &cli.StringFlag{Name: "stack-mode", Usage: "native (a GitHub stack) or chain (a plain --base chain); default: config stack.stack-mode, else native when the repository has stacks enabled"}
)

// specArg reads the spec issue: 12, #12 or an issue URL.
func specArg(c *cli.Context) (int, error) {
	args, err := cliapp.Args(c)
	if err != nil {
		return 0, err
	}
	if len(args) != 1 {
		return 0, exitcode.New(exitcode.Usage, "%s: name one spec issue (a number, #N or its URL)", c.Command.Name)
	}
	s := args[0]
	if i := strings.LastIndex(s, "/issues/"); i >= 0 {
		s = s[i+len("/issues/"):]
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(s, "/"), "#"))
	if err != nil || n <= 0 {
		return 0, exitcode.New(exitcode.Usage, "%s: %q is not an issue number", c.Command.Name, args[0])
	}
	return n, nil
}

// settings merges flags over the configuration files of the repository.
type settings struct {
	humanLabel, stackMode string
	timeout               time.Duration // each GitHub request's limit
}

func loadSettings(c *cli.Context, dir string) (settings, error) {
	root := ""
	if r, err := repo.Find(dir); err == nil {
		root = r.Root
	}
	cfg, err := config.Load(root)
	if err != nil {
		return settings{}, exitcode.Wrap(exitcode.Usage, err)
	}
	timeout, err := ghapi.RequestTimeout(cfg.GitHub.Timeout)
	if err != nil {
		return settings{}, err
	}
	s := settings{humanLabel: cfg.Stack.HumanLabel, stackMode: cfg.Stack.StackMode, timeout: timeout}
	if c.IsSet("human-label") {
		s.humanLabel = c.String("human-label")
	}
	if c.IsSet("stack-mode") {
		s.stackMode = c.String("stack-mode")
	}
	return s, nil
}

func connect(c *cli.Context) (*stack.Env, settings, error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return nil, settings{}, exitcode.Wrap(exitcode.Usage, err)
	}
	s, err := loadSettings(c, dir)
	if err != nil {
		return nil, s, err
	}
	env, err := stack.Connect(c.Context, dir, stack.ConnectOptions{Timeout: s.timeout})
	return env, s, err
}

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show how a spec issue's tickets stack up: mode, base, pinned base SHA and layers (read-only)",
		ArgsUsage: "SPEC-ISSUE",
		Description: `Reads the spec issue's open sub-issues and their blockers (GitHub's issue
dependencies first; a "Blocked by" section's #N references only where those
are empty) and prints them as layers in topological order, ties broken by the
spec's own order of sub-issues, then by number. Closed tickets are skipped; a
ticket labelled as needing a human is excluded with everything that depends on
it, and listed. A cycle is refused (exit 6) naming it, and so are tickets
without a "## Validation" section holding "### Run per change", and data that
makes no sense (a sub-issue or blocker without a number, a ticket blocked by
itself), every such ticket named.

The stack mode is native when the stacks API answers for the repository; when
it does not, plan stops (exit 5) and explains the choice: enable stacked pull
requests, or re-run with --stack-mode chain. The base is --base, else the
default branch when the checkout is on it; on any other branch plan stops
(exit 5) and asks for --base. The tickets' base SHA is pinned after fetching
origin: the full SHA of --start-ref (prior work; origin's branch, or the local
one when origin lacks it) or of the base. Nothing is changed anywhere.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "the branch the stack merges into (default: the default branch, when checked out)"},
			&cli.StringFlag{Name: "start-ref", Usage: "a branch carrying prior work for this spec: layer 0, what tickets are cut from"},
			stackModeFlag, humanLabelFlag,
		},
		Action: func(c *cli.Context) error {
			n, err := specArg(c)
			if err != nil {
				return err
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			p, err := stack.MakePlan(c.Context, env, stack.PlanRequest{
				Spec: n, Base: c.String("base"), StartRef: c.String("start-ref"), StackMode: s.stackMode, HumanLabel: s.humanLabel,
			})
			if err != nil {
				return err
			}
			return cliapp.Emit(c, p, p.WriteText)
		},
	}
}

func recipesCommand() *cli.Command {
	return &cli.Command{
		Name:      "recipes",
		Usage:     "print the validation recipes of a spec issue's tickets",
		ArgsUsage: "SPEC-ISSUE",
		Description: `Reads the "## Validation" section of each open sub-issue that does not need a
human, and prints the union of their "### Run per change" commands, the union
of their "### Run at review" commands, and each ticket's own lists. A command
is a line's first backticked span; a line with none, or a prose line
("absent: …", "not applicable: …", "Recipe measured …", "Needs: …",
"Deferred repo gate: …", also after a "Label:"), names none. Each command is
kept once, two that differ only in whitespace being one, as first written.
Tickets without "### Run per change" are listed as missing, and the command
exits 6 after printing.`,
		Flags: []cli.Flag{humanLabelFlag},
		Action: func(c *cli.Context) error {
			n, err := specArg(c)
			if err != nil {
				return err
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			set, err := stack.SpecRecipes(c.Context, env.GH, n, s.humanLabel)
			if err != nil {
				return err
			}
			if err := cliapp.Emit(c, set, func(w io.Writer) error { return writeRecipes(w, set) }); err != nil {
				return err
			}
			if len(set.Missing) > 0 {
				var names []string
				for _, m := range set.Missing {
					names = append(names, fmt.Sprintf("#%d", m.Number))
				}
				return exitcode.New(exitcode.Invalid, "tickets without a \"### Run per change\" validation recipe: %s", strings.Join(names, ", "))
			}
			return nil
		},
	}
}

func writeRecipes(w io.Writer, set stack.RecipeSet) error {
	var b strings.Builder
	list := func(title string, cmds []string) {
		fmt.Fprintf(&b, "%s:\n", title)
		if len(cmds) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, c := range cmds {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	list("run per change", set.PerChange)
	list("run at review", set.AtReview)
	for _, m := range set.Missing {
		fmt.Fprintf(&b, "missing \"### Run per change\": #%d %s\n", m.Number, m.Title)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func linkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "make branches (or jj bookmarks) a stack of draft pull requests, bottom to top",
		ArgsUsage: "BRANCH-OR-PR...",
		Description: `Lists the stack bottom first: branch names (bookmarks in a jj repository), pull
request numbers or URLs. For each branch origin does not have yet, link pushes
it (in jj through "jj git push -b"), once: a branch origin already has at
another commit is refused before anything changes, and nothing is ever
force-pushed. Each branch's open pull request is reused, or a draft one opened
whose base is the branch below (--base, default the default branch, for the
bottom); a pull request with the wrong base is fixed. With stacked pull
requests enabled, the stack is registered natively: created from two layers,
extended on top when it exists. Without them, link builds the --base chain
only and prints how to merge it. It never marks a pull request ready, and run
again with the same list it changes nothing and says so.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "base branch of the bottom pull request (default: the repository's default branch)"},
			stackModeFlag,
		},
		Action: func(c *cli.Context) error {
			items, err := cliapp.Args(c)
			if err != nil {
				return err
			}
			if len(items) == 0 {
				return exitcode.New(exitcode.Usage, "link: name the branches or pull requests of the stack, bottom first")
			}
			env, s, err := connect(c)
			if err != nil {
				return err
			}
			// One link at a time per repository: two would race to push
			// and to open the same pull requests.
			unlock, err := lockLedger(c)
			if err != nil {
				return err
			}
			defer unlock()
			res, err := stack.Link(c.Context, env, stack.LinkRequest{Items: items, Base: c.String("base"), StackMode: s.stackMode}, cliapp.Stderr(c))
			if err != nil {
				return err
			}
			return cliapp.Emit(c, res, res.WriteText)
		},
	}
}

// lockLedger takes gh-specstack's ledger lock of the repository, failing
// at once (exit 3, naming the holder) when another run holds it.
func lockLedger(c *cli.Context) (func(), error) {
	dir, err := cliapp.RepoDir(c)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	r, err := repo.Find(dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Missing, err)
	}
	l, err := ledger.Acquire(r.LedgerDir("gh-specstack"))
	if err != nil {
		return nil, err
	}
	return func() { l.Release() }, nil
}
